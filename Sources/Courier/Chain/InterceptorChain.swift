/// What an ``Interceptor`` passes a request on with: the steps after it, and what they know
/// of the call (``context``).
public struct InterceptorChain: Sendable {
    /// Every step of the client's chain, in order.
    let steps: [ChainLink]
    /// The step that was handed this chain; ``proceed(_:)`` runs the one after it.
    let index: Int
    /// The call as the steps so far have set it up (its id, options, deadline, attempt).
    let call: ChainCall
    /// Set for a step of the user's: the chain checks it calls ``proceed(_:)`` at most once.
    let once: ProceedOnce?

    /// What the interceptors know about the request: its id, attempt, options' tags.
    public var context: RequestContext { call.context }

    /// Runs the steps after this one with `request` and returns the response they hand back.
    /// - Throws: the ``NetworkError`` a later step failed with; ``NetworkError/invalidRequest(_:)``
    ///   when called a second time by the same step in one attempt.
    public func proceed(_ request: HTTPRequest) async throws(NetworkError) -> HTTPResponse {
        try await proceed(request, call)
    }

    /// Runs the steps after this one with `request` and the call as this step changed it.
    nonisolated(nonsending) func proceed(_ request: HTTPRequest, _ call: ChainCall) async throws(NetworkError) -> HTTPResponse {
        if let once, !once.claim() {
            throw .invalidRequest("\(type(of: steps[index].step)) called proceed more than once in one attempt")
        }
        return try await InterceptorChain.run(request, steps: steps, at: index + 1, call)
    }

    /// Runs step `index` of `steps` with `request`. A step's error that is not a
    /// ``NetworkError`` becomes one (a `CancellationError` `cancelled`, any other `unknown`).
    nonisolated(nonsending) static func run(
        _ request: HTTPRequest, steps: [ChainLink], at index: Int, _ call: ChainCall
    ) async throws(NetworkError) -> HTTPResponse {
        let link = steps[index]
        let chain = InterceptorChain(steps: steps, index: index, call: call, once: link.isUsers ? ProceedOnce() : nil)
        do {
            return try await link.step.intercept(request, chain: chain)
        } catch {
            throw NetworkError(thrownByInterceptor: error)
        }
    }
}
