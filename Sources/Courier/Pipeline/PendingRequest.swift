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
    /// The caller's options, as given (a `nil` setting is the pipeline's).
    let options: RequestOptions
    /// When it entered the pipeline, on the pipeline's clock.
    let created: Duration
    /// When it must be over, on the pipeline's clock (all attempts and waits included).
    let deadline: Duration
    /// The timeout of one attempt (an attempt never runs past ``deadline`` either).
    let attemptTimeout: Duration
    /// Where the outcome goes.
    let reply: Reply<HTTPResponse>

    init(
        id: RequestID, request: HTTPRequest, options: RequestOptions, created: Duration, deadline: Duration,
        attemptTimeout: Duration, reply: Reply<HTTPResponse>
    ) {
        self.id = id
        self.request = request
        self.options = options
        self.created = created
        self.deadline = deadline
        self.attemptTimeout = attemptTimeout
        self.reply = reply
    }

    /// The retry policy its options set; `nil` for the pipeline's own.
    var retryPolicy: RetryPolicy? { options.retryPolicy }
    /// The redirect policy its options set; `nil` for the pipeline's own.
    var redirects: RedirectPolicy? { options.redirects }
    /// Whether the auth interceptor adds credentials.
    var requiresAuth: Bool { options.requiresAuth }
    /// Set for a streamed call (the transport step streams its response).
    var stream: StreamSettings? { options.stream }
    /// Told the request body's progress, each time it is sent.
    var uploadProgress: (@Sendable (TransferProgress) -> Void)? { options.uploadProgress }
    /// Whether it only reads, whatever its method (``RequestOptions/readKey``): retried as a GET.
    var isRead: Bool { options.readKey != nil }
    /// Whether a response refuses the credential, beside a 401.
    var credentialRejected: (@Sendable (HTTPResponse) -> Bool)? { options.credentialRejected }
    /// The caller's values for the interceptors (``RequestOptions/tags``).
    var tags: RequestTags { options.tags }
    /// The only session identity whose credentials it may carry (``RequestOptions/sessionIdentity``).
    var sessionIdentity: String? { options.sessionIdentity }
}
