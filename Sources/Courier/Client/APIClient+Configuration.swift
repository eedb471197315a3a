import Foundation

extension APIClient.Configuration {
    /// Where GraphQL operations go and how they are sent (``GraphQLConfiguration``).
    public typealias GraphQL = GraphQLConfiguration
    /// The cookie store's settings (``CookieConfiguration``).
    public typealias Cookies = CookieConfiguration
}

extension APIClient {
    /// The client's settings, grouped by concern, each with a documented default. Only
    /// ``baseURL`` is required.
    public struct Configuration: Sendable {
        /// How long requests may take.
        public struct Timeouts: Sendable, Equatable {
            /// The timeout of one attempt (one exchange with the server). Default 60 s.
            public var attempt: Duration
            /// The deadline of a whole request, all attempts and waits included: no attempt
            /// runs, and no retry waits, past it. Default 120 s.
            public var request: Duration

            /// Creates timeouts; the defaults are 60 s per attempt and 120 s per request.
            public init(attempt: Duration = .seconds(60), request: Duration = .seconds(120)) {
                self.attempt = attempt
                self.request = request
            }
        }

        /// How much the client takes on at once.
        public struct Limits: Sendable, Equatable {
            /// Requests running at once. Default 64.
            public var maxConcurrentRequests: Int
            /// Requests waiting for a running slot; beyond this, new requests fail at once with
            /// ``NetworkError/overloaded``. Default 1024.
            public var maxQueuedRequests: Int
            /// The largest response body accepted, in bytes, whatever the transport: a larger
            /// one fails with ``NetworkError/responseTooLarge(limit:)``. Default 10 MiB.
            public var maxResponseBytes: Int
            /// An adaptive limit per origin (``ConcurrencyLimitPolicy``): each origin's calls
            /// in flight are bounded by a limit that follows the origin's latency, in place of
            /// ``maxConcurrentRequests``, and ``maxQueuedRequests`` bounds each origin's queue.
            /// Default `nil`: the fixed limit, shared by every origin.
            public var adaptive: ConcurrencyLimitPolicy?

            /// Creates limits; the defaults are 64 running, 1024 waiting, 10 MiB per response,
            /// and no adaptive limit.
            public init(
                maxConcurrentRequests: Int = 64,
                maxQueuedRequests: Int = 1024,
                maxResponseBytes: Int = HTTPRequest.defaultMaximumResponseSize,
                adaptive: ConcurrencyLimitPolicy? = nil
            ) {
                self.adaptive = adaptive
                self.maxConcurrentRequests = maxConcurrentRequests
                self.maxQueuedRequests = maxQueuedRequests
                self.maxResponseBytes = maxResponseBytes
            }
        }

        /// What the client logs, and where.
        public struct Logging: Sendable {
            /// Where every line goes: requests and responses, retries, security warnings.
            /// Default none: the client logs nothing.
            public var logger: (any NetworkLogger)?
            /// How much of each request and response is logged. Default `standard`
            /// (method, URL, status, headers).
            public var detail: LogDetail
            /// What is hidden from the log. Default: credential headers, token-like query
            /// parameters and JSON fields (see ``Redaction``).
            public var redaction: Redaction
            /// The most body bytes logged at `verbose` detail. Default 1000.
            public var bodyLimit: Int

            /// Creates logging settings; by default nothing is logged, since there is no logger.
            public init(
                logger: (any NetworkLogger)? = nil,
                detail: LogDetail = .standard,
                redaction: Redaction = Redaction(),
                bodyLimit: Int = 1000
            ) {
                self.logger = logger
                self.detail = detail
                self.redaction = redaction
                self.bodyLimit = bodyLimit
            }

            /// The interceptor that logs exchanges, or `nil` when nothing is to be logged.
            var interceptor: LoggingInterceptor? {
                guard let logger, detail != .off else { return nil }
                return LoggingInterceptor(logger: logger, detail: detail, redaction: redaction, bodyLimit: bodyLimit)
            }
        }

        /// The session's tokens: kept by the client's token store, sent on every request that
        /// needs them, refreshed before they expire and after a 401 (one refresh however many
        /// requests need it).
        public struct Session: Sendable {
            /// Where the tokens survive restarts. Default in memory (the process's lifetime).
            public var persistence: any TokenPersistence
            /// Requests refresh first from this long before the access token expires. Default 60 s.
            public var refreshThreshold: Duration
            /// The refresh endpoint's path under the base URL. Default `auth/refresh`.
            public var refreshPath: String
            /// The refresh endpoint's API version (first path segment). Default none.
            public var refreshVersion: APIVersion?
            /// The body of the `POST` to the refresh endpoint. Default `{"refreshToken": …}`,
            /// keys written with the client's JSON key strategy.
            public var refreshBody: @Sendable (_ refreshToken: String, _ encoder: JSONEncoder) throws -> Data
            /// Reads the new tokens from the refresh endpoint's 2xx response. Default:
            /// `{accessToken, refreshToken?, expiresIn?}` (keys read with the client's JSON key
            /// strategy); the expiry from `expiresIn` seconds, else from the access token's JWT
            /// `exp`, else unknown. A missing refresh token keeps the previous one.
            public var readTokens: @Sendable (_ response: HTTPResponse, _ decoder: JSONDecoder, _ now: Date) throws -> Tokens
            /// At most this many refreshes start within ``refreshWindow``; beyond that, requests
            /// fail with `unauthorized` instead of looping. Default 5.
            public var maxRefreshes: Int
            /// Default 30 s.
            public var refreshWindow: Duration

            /// Creates session settings; the defaults fit `POST auth/refresh` with
            /// `{refreshToken}` answering `{accessToken, refreshToken?, expiresIn}`.
            public init(
                persistence: any TokenPersistence = InMemoryTokenPersistence(),
                refreshThreshold: Duration = .seconds(60),
                refreshPath: String = "auth/refresh",
                refreshVersion: APIVersion? = nil,
                refreshBody: @escaping @Sendable (_ refreshToken: String, _ encoder: JSONEncoder) throws -> Data = Session.defaultRefreshBody,
                readTokens: @escaping @Sendable (_ response: HTTPResponse, _ decoder: JSONDecoder, _ now: Date) throws -> Tokens = Session.defaultReadTokens,
                maxRefreshes: Int = 5,
                refreshWindow: Duration = .seconds(30)
            ) {
                self.persistence = persistence
                self.refreshThreshold = refreshThreshold
                self.refreshPath = refreshPath
                self.refreshVersion = refreshVersion
                self.refreshBody = refreshBody
                self.readTokens = readTokens
                self.maxRefreshes = maxRefreshes
                self.refreshWindow = refreshWindow
            }

            /// `{"refreshToken": …}` through `encoder` (so `refresh_token` under snake case).
            public static let defaultRefreshBody: @Sendable (String, JSONEncoder) throws -> Data = { token, encoder in
                struct Body: Encodable { let refreshToken: String }
                return try encoder.encode(Body(refreshToken: token))
            }

            /// `{accessToken, refreshToken?, expiresIn?}` through `decoder`.
            public static let defaultReadTokens: @Sendable (HTTPResponse, JSONDecoder, Date) throws -> Tokens = { response, decoder, now in
                struct Answer: Decodable {
                    let accessToken: String
                    let refreshToken: String?
                    let expiresIn: Double?
                }
                let answer = try decoder.decode(Answer.self, from: response.body)
                if let expiresIn = answer.expiresIn {
                    return Tokens(accessToken: answer.accessToken, refreshToken: answer.refreshToken, expiresIn: expiresIn, now: now)
                }
                let expiry = try? JWT.expiry(of: answer.accessToken)
                return Tokens(accessToken: answer.accessToken, refreshToken: answer.refreshToken, expiresAt: expiry)
            }
        }

        /// The response cache: GETs answered from memory under HTTP freshness rules, identical
        /// concurrent GETs sharing one fetch.
        public struct Caching: Sendable {
            /// The most responses kept. Default 100.
            public var maxEntries: Int
            /// The most bytes kept (bodies and header fields). Default 10 MiB.
            public var maxBytes: Int
            /// Freshness of responses that give none (``CacheTTL/defaultTTL``). Default 300 s.
            public var defaultTTL: Duration
            /// The policy of requests that set none. Default ``CachePolicy/cacheFirst``.
            public var policy: CachePolicy
            /// The time to live of requests that set none. Default ``CacheTTL/defaultTTL``.
            public var ttl: CacheTTL
            /// A SQLite database file that keeps stored responses across restarts (its directory
            /// must exist). Default none: memory only. Read and written on the cache's own thread;
            /// a file another process holds locked is waited for at most 1 s per statement, then
            /// that read or write is skipped with ``CacheEvent/storageFailed(_:)`` (a failed open
            /// leaves the cache in memory only; an I/O error or a damaged file restarts the cache,
            /// which opens the file again).
            public var storageFile: URL?
            /// The most bytes the database file keeps. Default 50 MiB.
            public var storageMaxBytes: Int
            /// Where the persistent tier is stored: SQLite, at ``storageFile``.
            var storage: any PersistentCacheStorage = SQLiteCacheStorage()

            /// Creates cache settings; the defaults are 100 entries, 10 MiB, 300 s, `cacheFirst`,
            /// memory only.
            public init(
                maxEntries: Int = 100, maxBytes: Int = 10 * 1024 * 1024, defaultTTL: Duration = .seconds(300),
                policy: CachePolicy = .cacheFirst, ttl: CacheTTL = .defaultTTL,
                storageFile: URL? = nil, storageMaxBytes: Int = 50 * 1024 * 1024
            ) {
                self.storageFile = storageFile
                self.storageMaxBytes = storageMaxBytes
                self.maxEntries = maxEntries
                self.maxBytes = maxBytes
                self.defaultTTL = defaultTTL
                self.policy = policy
                self.ttl = ttl
            }
        }

        /// The URL every endpoint path is appended to (it may carry a path prefix).
        public var baseURL: URL
        /// What moves the bytes. Default ``defaultTransport``: on Linux one ``CurlTransport``
        /// shared by every client that takes the default, on Apple platforms a
        /// ``URLSessionTransport``.
        public var transport: any HTTPTransport
        /// The HTTPS-only guard. Default on; `nil` removes it.
        public var security: SecurityGuard?
        /// Credentials for requests to the base URL's origin: `Bearer …` from a token closure,
        /// or a password (``AuthInterceptor/basic(user:password:allowsInsecureHTTP:)``,
        /// ``AuthInterceptor/digest(user:password:allowsInsecureHTTP:)``). Default none. With a
        /// ``session``, the session's tokens are used instead and only this interceptor's
        /// ``AuthInterceptor/publicPaths`` are kept.
        public var auth: AuthInterceptor?
        /// Tokens managed by the client (sign-in, refresh, persistence). Default none.
        public var session: Session?
        /// The response cache. Default none: every request goes to the network.
        public var caching: Caching?
        /// How the client learns whether it is online. Default none; with ``offline`` set, the
        /// defaults of ``Connectivity`` apply.
        public var connectivity: Connectivity?
        /// The durable offline queue for writes. Default none.
        public var offline: Offline?
        /// The cookie store (RFC 6265), in memory or in a file. Default none: no cookie is kept
        /// or sent but those you set in a request's headers.
        public var cookies: Cookies?
        /// Your request interceptors; they run first, then the security guard, auth and logging.
        public var requestInterceptors: [any RequestInterceptor]
        /// Your interceptors (``Interceptor``), in order: each attempt passes them after the
        /// request interceptors and before the redirects, the security guard, auth, logging and
        /// the transport. Default none.
        public var interceptors: [any Interceptor]
        /// Your response interceptors; they run after logging and the security guard.
        public var responseInterceptors: [any ResponseInterceptor]
        /// Retries of every request that does not set its own. Default ``RetryPolicy/default``.
        public var retryPolicy: RetryPolicy
        /// The cap on retries across requests. Default: 20 % of requests, plus a reserve of 10.
        public var retryBudget: RetryBudget
        /// The circuit breaker per origin every request's attempts pass, unless the request sets
        /// its own (``RequestOptions/circuitBreaker``). Default none: no breaker (see
        /// ``CircuitBreakerPolicy``; ``CircuitBreakerPolicy/standard`` has its defaults).
        public var circuitBreaker: CircuitBreakerPolicy?
        /// Hedged requests for every repeatable request that does not set its own
        /// (``RequestOptions/hedging``). Default none: no hedging (see ``HedgingPolicy``).
        public var hedging: HedgingPolicy?
        /// JSON settings for bodies and responses. Default: keys as they are, ISO-8601 dates.
        public var json: JSONCoding
        /// What an error status's JSON body is decoded into (``NetworkError/errorBody``,
        /// ``NetworkError/decodedBody(as:decoder:)``), e.g. ``ProblemDetails``: decoded with
        /// ``json``'s settings, only when the status is 400 or more; a body that does not
        /// decode leaves the error as it is. A call's ``RequestOptions/errorBody`` replaces it.
        /// Default none.
        public var errorBody: (any (Decodable & Sendable).Type)?
        /// Where GraphQL operations go and how (``APIClient/graphQL``). Default: `POST`s to
        /// `graphql` under the base URL, no persisted queries.
        public var graphQL = GraphQL()
        /// Per-attempt timeout and whole-request deadline. Default 60 s and 120 s.
        public var timeouts: Timeouts
        /// Requests in flight and queued, and the response size limit. Default 64, 1024, 10 MiB.
        public var limits: Limits
        /// Which redirects are followed. Default: every one the rules allow, up to 20 hops
        /// (see ``RedirectPolicy``).
        public var redirects: RedirectPolicy
        /// The `User-Agent` of requests that set none. Default ``defaultUserAgent``; `nil` sends
        /// none of Courier's (the transport may add its own).
        public var userAgent: String?
        /// The logger and what it is told. Default: nothing is logged.
        public var logging: Logging
        /// How the client's components are restarted when one fails. Default 3 restarts in 5 s,
        /// then the client stops (every call fails with ``NetworkError/componentUnavailable(_:)``).
        public var restarts: RestartPolicy
        /// Time for deadlines, backoff and restarts. Default the system clock.
        public var clock: any TimeSource
        /// Randomness for jitter. Default the system generator.
        public var random: any RandomSource

        /// The transport of a configuration that names none: on Linux, one ``CurlTransport``
        /// with its default configuration for the whole process (its connections are shared);
        /// on Apple platforms, a ``URLSessionTransport``.
        public static var defaultTransport: any HTTPTransport {
            #if canImport(CCurl)
            sharedCurlTransport
            #else
            URLSessionTransport()
            #endif
        }

        #if canImport(CCurl)
        private static let sharedCurlTransport = CurlTransport()
        #endif

        /// Creates a configuration; every setting but `baseURL` has the default documented on it.
        public init(
            baseURL: URL,
            transport: any HTTPTransport = Configuration.defaultTransport,
            security: SecurityGuard? = SecurityGuard(),
            auth: AuthInterceptor? = nil,
            session: Session? = nil,
            caching: Caching? = nil,
            connectivity: Connectivity? = nil,
            offline: Offline? = nil,
            cookies: Cookies? = nil,
            requestInterceptors: [any RequestInterceptor] = [],
            responseInterceptors: [any ResponseInterceptor] = [],
            interceptors: [any Interceptor] = [],
            retryPolicy: RetryPolicy = .default,
            retryBudget: RetryBudget = RetryBudget(),
            circuitBreaker: CircuitBreakerPolicy? = nil,
            hedging: HedgingPolicy? = nil,
            json: JSONCoding = JSONCoding(),
            timeouts: Timeouts = Timeouts(),
            limits: Limits = Limits(),
            redirects: RedirectPolicy = .follow,
            userAgent: String? = Configuration.defaultUserAgent,
            logging: Logging = Logging(),
            restarts: RestartPolicy = RestartPolicy(),
            clock: any TimeSource = SystemTimeSource(),
            random: any RandomSource = SystemRandomSource()
        ) {
            self.baseURL = baseURL
            self.transport = transport
            self.security = security
            self.auth = auth
            self.session = session
            self.caching = caching
            self.connectivity = connectivity
            self.offline = offline
            self.cookies = cookies
            self.requestInterceptors = requestInterceptors
            self.responseInterceptors = responseInterceptors
            self.interceptors = interceptors
            self.retryPolicy = retryPolicy
            self.retryBudget = retryBudget
            self.circuitBreaker = circuitBreaker
            self.hedging = hedging
            self.json = json
            self.timeouts = timeouts
            self.limits = limits
            self.redirects = redirects
            self.userAgent = userAgent
            self.logging = logging
            self.restarts = restarts
            self.clock = clock
            self.random = random
        }

        /// Courier's version, as its `User-Agent` gives it.
        public static let version = "0.1.0"

        /// `Courier/<version> (<os>)`, e.g. `Courier/0.1.0 (Linux)`.
        public static let defaultUserAgent: String = {
            #if os(Linux)
            let os = "Linux"
            #elseif os(macOS)
            let os = "macOS"
            #elseif os(iOS)
            let os = "iOS"
            #elseif os(tvOS)
            let os = "tvOS"
            #elseif os(watchOS)
            let os = "watchOS"
            #else
            let os = "unknown OS"
            #endif
            return "Courier/\(version) (\(os))"
        }()

        /// The auth interceptor the chain's auth step uses: the session's (with the configured
        /// public paths) when `tokens` is the session's token store, else ``auth``.
        func authentication(tokens: TokenStore.Handle?) -> AuthInterceptor? {
            guard let tokens else { return auth }
            return AuthInterceptor(publicPaths: auth?.publicPaths ?? AuthInterceptor.defaultPublicPaths, store: tokens)
        }
    }
}
