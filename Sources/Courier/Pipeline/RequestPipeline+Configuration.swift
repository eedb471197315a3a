import Foundation

extension RequestPipeline {
    /// Everything a pipeline runs with, filled from the user's configuration by the client's
    /// builder (`ClientComponents`).
    struct Configuration: Sendable {
        /// The steps of each attempt, in order (`RequestChain.attemptSteps`).
        var attemptSteps: [AttemptStep]
        var transport: any HTTPTransport
        /// The user's request interceptors (the ``AttemptStep/interceptors`` step, outward).
        var requestInterceptors: [any RequestInterceptor]
        /// The user's response interceptors (the ``AttemptStep/interceptors`` step, on the way back).
        var responseInterceptors: [any ResponseInterceptor]
        var retryPolicy: RetryPolicy
        var retryBudget: RetryBudget
        var attemptTimeout: Duration
        var requestDeadline: Duration
        var maxConcurrentRequests: Int
        var maxQueuedRequests: Int
        var maxResponseBytes: Int
        var redirects: RedirectPolicy
        /// The client's own steps' settings. The security guard also judges every redirect target.
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

        init(
            attemptSteps: [AttemptStep],
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
            self.attemptSteps = attemptSteps
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
