/// One link of the chain an attempt passes on a pipeline worker. ``RequestExecution`` runs the
/// configured list in order: each step may change the request on its way out and sees the
/// response on its way back. The order is declared in one place, `RequestChain.attemptSteps`.
enum AttemptStep: Sendable, Equatable, CaseIterable {
    /// The user's request interceptors on the way out (one may answer instead of the network),
    /// the user's response interceptors on the way back.
    case interceptors
    /// The security guard: it refuses what its rules forbid before any credential is attached,
    /// and inspects the response.
    case securityGuard
    /// Adds the session's (or the user's auth interceptor's) credentials.
    case auth
    /// Logs the request as sent and the response as received.
    case logging
    /// One exchange with the server, and the redirects followed after it.
    case transport
}
