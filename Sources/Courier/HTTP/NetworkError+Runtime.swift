extension NetworkError {
    /// The one place where what a component answered becomes the user's error model: a
    /// `NetworkError` stays as it is, runtime errors map to their cases of the same name, and
    /// anything else unexpected is `unknown`.
    init(answer error: any Error) {
        switch error {
        case let error as NetworkError: self = error
        case RuntimeError.componentUnavailable(let name): self = .componentUnavailable(name)
        case RuntimeError.componentRestarted(let name): self = .componentRestarted(name)
        default: self = .unknown(underlying: error)
        }
    }
}

extension NetworkError {
    /// What a user's interceptor threw, in the error model: a `NetworkError` as it is, a
    /// `CancellationError` as `cancelled`, anything else `unknown` with it as the cause.
    init(thrownByInterceptor error: any Error) {
        switch error {
        case let error as NetworkError: self = error
        case is CancellationError: self = .cancelled
        default: self = .unknown(underlying: error)
        }
    }
}

extension Mailbox {
    /// An ask whose failure is a ``NetworkError``: what the component answered, or the runtime's
    /// error mapped by ``NetworkError/init(answer:)``. What component handles use towards users.
    nonisolated(nonsending) func request<Value: Sendable>(_ makeMessage: (Reply<Value>) -> Message) async throws(NetworkError) -> Value {
        do {
            return try await ask(makeMessage)
        } catch {
            throw NetworkError(answer: error)
        }
    }
}
