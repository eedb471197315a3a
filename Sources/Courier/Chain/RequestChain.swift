/// A client's chain: every step a call passes, in order, as the client's builder assembled it
/// (`ClientComponents.steps`): offline gate, cache, admission, retry with the 401 renewal, your
/// interceptors, redirects, security guard, auth, logging, transport. A client has only the
/// steps it has something for.
///
/// A call runs in its caller's task, every step and the transport: they see its task-local
/// values, and cancelling it reaches the transport.
final class RequestChain: Sendable {
    let steps: [ChainLink]
    let settings: ChainSettings
    /// Where a call that must be neither queued nor cached enters (a queued write's replay):
    /// the admission step.
    let admission: Int
    /// Whether the client has a cache: without one nothing is stored, and `cacheOnly` has
    /// nothing to answer with.
    let hasCache: Bool

    init(steps: [ChainLink], settings: ChainSettings, admission: Int, hasCache: Bool) {
        self.steps = steps
        self.settings = settings
        self.admission = admission
        self.hasCache = hasCache
    }

    /// Runs `request` through every step and returns its final response (a 2xx, or a 3xx that
    /// was not followed).
    nonisolated(nonsending) func send(
        _ request: HTTPRequest, options: RequestOptions, settings callSettings: CallSettings = CallSettings()
    ) async throws(NetworkError) -> HTTPResponse {
        if Task.isCancelled { throw .cancelled }
        if !hasCache, options.cachePolicy == .cacheOnly { throw .notCached }
        return try await InterceptorChain.run(request, steps: steps, at: 0, ChainCall(client: settings, options: options, settings: callSettings))
    }

    /// Runs `request` from admission on: neither queued nor answered by the cache, whatever its
    /// method (a queued write's replay); its outcome as a value.
    nonisolated(nonsending) func sendAdmitted(
        _ request: HTTPRequest, options: RequestOptions, settings callSettings: CallSettings
    ) async -> Result<HTTPResponse, NetworkError> {
        do throws(NetworkError) {
            return .success(try await InterceptorChain.run(
                request, steps: steps, at: admission, ChainCall(client: settings, options: options, settings: callSettings)))
        } catch {
            return .failure(error)
        }
    }
}
