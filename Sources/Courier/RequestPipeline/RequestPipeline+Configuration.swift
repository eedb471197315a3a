import Foundation

extension RequestPipeline {
    /// Everything a pipeline runs with. The facade fills it from the user's configuration; the
    /// order of the interceptor chain is decided here, in one place.
    struct Configuration: Sendable {
        var transport: any HTTPTransport
        /// The user's request interceptors: they run first, then ``security``, ``auth`` and
        /// ``logging``.
        var requestInterceptors: [any RequestInterceptor]
        /// The user's response interceptors: they run after ``logging`` and ``security``.
        var responseInterceptors: [any ResponseInterceptor]
        var retryPolicy: RetryPolicy
        var retryBudget: RetryBudget
        var attemptTimeout: Duration
        var requestDeadline: Duration
        var maxConcurrentRequests: Int
        var maxQueuedRequests: Int
        var maxResponseBytes: Int
        var redirects: RedirectPolicy
        /// The client's own interceptors, called directly rather than through the existential
        /// chain: no async call through a witness table and no copy of the request per
        /// interceptor on every attempt. The security guard also judges every redirect target.
        var security: SecurityGuard?
        var auth: AuthInterceptor?
        var logging: LoggingInterceptor?
        /// The client's base URL: credentials are added only for its origin.
        var baseURL: URL?
        /// The session's token store, when the client has one: a 401 to its token is renewed
        /// and replayed once.
        var tokens: TokenStore.Handle?
        /// Added to requests that have no `User-Agent`; `nil` adds none.
        var userAgent: String?
        var logger: (any NetworkLogger)?
        var redaction: Redaction
        var clock: any TimeSource
        var random: any RandomSource

        /// The chains' order (``RequestExecution`` runs them so). Request side: the user's
        /// interceptors, then the security guard (it sees the URL they left, before any
        /// credential is attached), then auth, then logging (so it logs what is sent). Response
        /// side: logging first (what arrived), the security guard, then the user's.
        init(
            transport: any HTTPTransport,
            requestInterceptors: [any RequestInterceptor],
            responseInterceptors: [any ResponseInterceptor],
            security: SecurityGuard?,
            auth: AuthInterceptor?,
            logging: LoggingInterceptor?,
            retryPolicy: RetryPolicy,
            retryBudget: RetryBudget,
            attemptTimeout: Duration,
            requestDeadline: Duration,
            maxConcurrentRequests: Int,
            maxQueuedRequests: Int,
            maxResponseBytes: Int,
            redirects: RedirectPolicy,
            baseURL: URL?,
            tokens: TokenStore.Handle?,
            userAgent: String?,
            logger: (any NetworkLogger)?,
            redaction: Redaction,
            clock: any TimeSource,
            random: any RandomSource
        ) {
            self.transport = transport
            self.requestInterceptors = requestInterceptors
            self.responseInterceptors = responseInterceptors
            self.retryPolicy = retryPolicy
            self.retryBudget = retryBudget
            self.attemptTimeout = attemptTimeout
            self.requestDeadline = requestDeadline
            self.maxConcurrentRequests = max(1, maxConcurrentRequests)
            self.maxQueuedRequests = max(0, maxQueuedRequests)
            self.maxResponseBytes = max(0, maxResponseBytes)
            self.redirects = redirects
            self.security = security
            self.auth = auth
            self.logging = logging
            self.baseURL = baseURL
            self.tokens = tokens
            self.userAgent = userAgent
            self.logger = logger
            self.redaction = redaction
            self.clock = clock
            self.random = random
        }
    }
}
