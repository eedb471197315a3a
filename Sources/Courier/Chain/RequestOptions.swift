/// Per-request settings. A `nil` setting takes the client's value; everything is resolved once,
/// when the request enters the pipeline.
public struct RequestOptions: Sendable {
    /// The timeout of each attempt. Default: the client's ``APIClient/Configuration/Timeouts/attempt``.
    public var attemptTimeout: Duration?
    /// The deadline of the whole request, all attempts and waits included.
    /// Default: the client's ``APIClient/Configuration/Timeouts/request``.
    public var deadline: Duration?
    /// The retry policy for this request (``RetryPolicy/never`` for none).
    /// Default: the client's ``APIClient/Configuration/retryPolicy``.
    public var retryPolicy: RetryPolicy?
    /// The circuit breaker this request's attempts pass (``CircuitBreakerPolicy/disabled`` for
    /// none). A request with a policy of its own shares a breaker per origin only with requests
    /// of the same policy. Default: the client's ``APIClient/Configuration/circuitBreaker``.
    public var circuitBreaker: CircuitBreakerPolicy?
    /// Whether this request's attempts are hedged (``HedgingPolicy/disabled`` for not).
    /// Default: the client's ``APIClient/Configuration/hedging``.
    public var hedging: HedgingPolicy?
    /// How urgently this call needs an admission slot: which waiting call starts first and
    /// which is shed first when the queue is full (``RequestPriority``). Default
    /// ``RequestPriority/default``; the offline queue's replays are ``RequestPriority/background``.
    public var priority: RequestPriority?
    /// Whether the auth interceptor adds credentials. Default `true`; public paths (login,
    /// refresh, health) go without whatever this says.
    public var requiresAuth: Bool
    /// Where a GET's answer may come from, when the client has a cache.
    /// Default: the client's ``APIClient/Configuration/Caching/policy`` (`cacheFirst`). On a
    /// client without ``APIClient/Configuration/caching`` nothing is stored: every policy asks
    /// the network, except ``CachePolicy/cacheOnly``, which fails with
    /// ``NetworkError/notCached``.
    public var cachePolicy: CachePolicy?
    /// How long a response without freshness information of its own stays fresh.
    /// Default: the client's ``APIClient/Configuration/Caching/ttl`` (`defaultTTL`).
    public var cacheTTL: CacheTTL?
    /// Which redirects this request follows (``RedirectPolicy/doNotFollow`` to see every 3xx).
    /// Default: the client's ``APIClient/Configuration/redirects``.
    public var redirects: RedirectPolicy?
    /// Called with the request body's progress as the transport reads it (from 0 again when
    /// a retry or a redirect sends it again), at most every 100 ms, and once at its end.
    /// Called on the transport's thread: return quickly. Default `nil`. (With
    /// ``URLSessionTransport``, which reads a body stream whole before the exchange, it reaches
    /// the end before the bytes are sent.)
    public var uploadProgress: (@Sendable (TransferProgress) -> Void)?
    /// Called with the response body's progress as the caller reads it, for the streamed calls
    /// (``APIClient/bytes(for:stallTimeout:maxBytes:)``, ``APIClient/download(_:to:maxBytes:resumable:stallTimeout:)``),
    /// at most every 100 ms and once at its end. Default `nil`.
    public var downloadProgress: (@Sendable (TransferProgress) -> Void)?
    /// What this call's error statuses' bodies are decoded into (``NetworkError/errorBody``),
    /// e.g. ``ProblemDetails`` or your own type; decoded only when the status is 400 or more.
    /// Default: the client's ``APIClient/Configuration/errorBody``.
    public var errorBody: (any (Decodable & Sendable).Type)?
    /// What this call does, in a few stable words: an OpenAPI `operationID`, a GraphQL
    /// operation's name. It is in the call's ``RequestEvent/started(_:method:url:operation:)``
    /// event, so metrics can count by operation rather than by path (a bounded label, unlike a
    /// path with ids in it); never sent. Default none.
    public var operationName: String?
    /// Values for the interceptors of this call's attempts (``RequestContext/tags``), such as an
    /// integration's per-call state; never sent. Default none.
    public var tags = RequestTags()
    /// The ordering key of this write if it is queued offline (``OfflineItem/orderingKey``):
    /// writes with the same key replay one at a time, in order, across every client sharing the
    /// queue. Default none: the client's (``APIClient/Configuration/Offline/orderingKey``).
    public var orderingKey: String?

    /// Creates options; every parameter defaults to the client's behaviour.
    public init(
        attemptTimeout: Duration? = nil,
        deadline: Duration? = nil,
        retryPolicy: RetryPolicy? = nil,
        requiresAuth: Bool = true,
        cachePolicy: CachePolicy? = nil,
        cacheTTL: CacheTTL? = nil,
        redirects: RedirectPolicy? = nil,
        uploadProgress: (@Sendable (TransferProgress) -> Void)? = nil,
        downloadProgress: (@Sendable (TransferProgress) -> Void)? = nil,
        errorBody: (any (Decodable & Sendable).Type)? = nil,
        circuitBreaker: CircuitBreakerPolicy? = nil,
        hedging: HedgingPolicy? = nil,
        priority: RequestPriority? = nil,
        operationName: String? = nil,
        orderingKey: String? = nil
    ) {
        self.orderingKey = orderingKey
        self.operationName = operationName
        self.priority = priority
        self.circuitBreaker = circuitBreaker
        self.hedging = hedging
        self.errorBody = errorBody
        self.uploadProgress = uploadProgress
        self.downloadProgress = downloadProgress
        self.redirects = redirects
        self.attemptTimeout = attemptTimeout
        self.deadline = deadline
        self.retryPolicy = retryPolicy
        self.requiresAuth = requiresAuth
        self.cachePolicy = cachePolicy
        self.cacheTTL = cacheTTL
    }
}
