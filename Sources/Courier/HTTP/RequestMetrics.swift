/// What the pipeline did to get a response: the request's id (the one its
/// ``APIClient/events(buffer:)`` carry), how many attempts and redirects it took, and how long,
/// from admission to the answer.
public struct RequestMetrics: Sendable, Equatable {
    /// The request's identifier, as in its events and its log lines.
    public var id: RequestID
    /// The attempts made, 1 for a request answered the first time.
    public var attempts: Int
    /// The redirects followed in the last attempt.
    public var redirects: Int
    /// From the pipeline's start of the request to its answer, on the client's clock.
    public var duration: Duration

    /// Creates metrics (tests and transports of your own build theirs).
    public init(id: RequestID, attempts: Int, redirects: Int, duration: Duration) {
        self.id = id
        self.attempts = attempts
        self.redirects = redirects
        self.duration = duration
    }
}
