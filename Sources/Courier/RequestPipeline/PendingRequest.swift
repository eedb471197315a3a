/// A request on its way through the pipeline, with its settings resolved and the reply its
/// outcome goes to.
///
/// A class, not a struct: it travels in a message, a queue and a worker's inbox, and is the same
/// request in each.
final class PendingRequest: Sendable {
    /// The request's identifier.
    let id: RequestID
    /// The request as the caller built it, before interceptors.
    let request: HTTPRequest
    /// When it entered the pipeline, on the pipeline's clock.
    let created: Duration
    /// When it must be over, on the pipeline's clock (all attempts and waits included).
    let deadline: Duration
    /// The timeout of one attempt (an attempt never runs past ``deadline`` either).
    let attemptTimeout: Duration
    /// The retry policy its options set; `nil` for the pipeline's own.
    let retryPolicy: RetryPolicy?
    /// The redirect policy its options set; `nil` for the pipeline's own.
    let redirects: RedirectPolicy?
    /// Whether the auth interceptor adds credentials.
    let requiresAuth: Bool
    /// Set for a streamed call (the transport step streams its response).
    let stream: StreamSettings?
    /// Told the request body's progress, each time it is sent.
    let uploadProgress: (@Sendable (TransferProgress) -> Void)?
    /// Whether it only reads, whatever its method (``RequestOptions/readKey``): retried as a GET.
    let isRead: Bool
    /// Whether a response refuses the credential, beside a 401.
    let credentialRejected: (@Sendable (HTTPResponse) -> Bool)?
    /// The caller's values for the interceptors (``RequestOptions/tags``).
    let tags: RequestTags
    /// The only session identity whose credentials it may carry (``RequestOptions/sessionIdentity``).
    let sessionIdentity: String?
    /// Where the outcome goes.
    let reply: Reply<HTTPResponse>

    init(
        id: RequestID, request: HTTPRequest, created: Duration, deadline: Duration, attemptTimeout: Duration,
        retryPolicy: RetryPolicy?, redirects: RedirectPolicy? = nil, requiresAuth: Bool, stream: StreamSettings? = nil,
        uploadProgress: (@Sendable (TransferProgress) -> Void)? = nil, isRead: Bool = false,
        credentialRejected: (@Sendable (HTTPResponse) -> Bool)? = nil, tags: RequestTags = RequestTags(),
        sessionIdentity: String? = nil, reply: Reply<HTTPResponse>
    ) {
        self.tags = tags
        self.sessionIdentity = sessionIdentity
        self.isRead = isRead
        self.credentialRejected = credentialRejected
        self.uploadProgress = uploadProgress
        self.stream = stream
        self.redirects = redirects
        self.id = id
        self.request = request
        self.created = created
        self.deadline = deadline
        self.attemptTimeout = attemptTimeout
        self.retryPolicy = retryPolicy
        self.requiresAuth = requiresAuth
        self.reply = reply
    }
}
