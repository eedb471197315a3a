/// A request on its way through the pipeline, with its settings resolved and the reply its
/// outcome goes to.
struct PendingRequest: Sendable {
    /// The request's identifier.
    let id: RequestID
    /// The request as the caller built it, before interceptors.
    let request: HTTPRequest
    /// When it must be over, on the pipeline's clock (all attempts and waits included).
    let deadline: Duration
    /// The timeout of one attempt (an attempt never runs past ``deadline`` either).
    let attemptTimeout: Duration
    /// The retry policy it runs under.
    let retryPolicy: RetryPolicy
    /// Whether the auth interceptor adds credentials.
    let requiresAuth: Bool
    /// Where the outcome goes.
    let reply: Reply<HTTPResponse>
}
