import Foundation

/// The client users call: plain `async throws` methods over typed endpoints.
///
///     let client = APIClient(configuration: .init(baseURL: URL(string: "https://api.example.com")!))
///     let user = try await client.send(Endpoint<User>(path: "users/42", version: .v1))
///
/// Behind it, a supervisor runs the components; each call becomes one `execute` message to the
/// ``RequestPipeline``'s mailbox. Users never see the messages. Call ``shutdown()`` when done.
public final class APIClient: Sendable {
    /// The client's settings, with documented defaults.
    public struct Configuration: Sendable {
        /// The URL every endpoint path is appended to (it may carry a path prefix).
        public var baseURL: URL
        /// What moves the bytes. Default ``URLSessionTransport``.
        public var transport: any HTTPTransport
        /// The HTTPS-only guard. Default on; set `nil` to remove it.
        public var security: SecurityGuard?
        /// The auth slot: adds `Authorization: Bearer …`. Default none.
        public var auth: AuthInterceptor?
        /// Logs requests and responses (redacted). Default none: Courier logs nothing.
        public var logging: LoggingInterceptor?
        /// Your request interceptors; they run first, then the security guard, auth and logging.
        public var requestInterceptors: [any RequestInterceptor]
        /// Your response interceptors; they run after logging and the security guard.
        public var responseInterceptors: [any ResponseInterceptor]
        /// Retries of every request that does not set its own. Default ``RetryPolicy/default``.
        public var retryPolicy: RetryPolicy
        /// The cap on retries across requests. Default: 20 % of requests, plus a reserve of 10.
        public var retryBudget: RetryBudget
        /// JSON settings for bodies and responses. Default: Foundation's defaults.
        public var json: JSONCoding
        /// The timeout of each attempt. Default 60 s.
        public var timeout: Duration
        /// The deadline of a whole request, all attempts and waits included. Default 120 s.
        public var requestDeadline: Duration
        /// Requests running at once. Default 64.
        public var maxConcurrentRequests: Int
        /// Requests waiting for a slot; beyond this, `overloaded`. Default 1024.
        public var maxQueuedRequests: Int
        /// Where diagnostics go (retries, security warnings). Default none.
        public var logger: (any NetworkLogger)?
        /// Time for deadlines and backoff. Default the system clock.
        public var clock: any TimeSource
        /// Randomness for jitter. Default the system generator.
        public var random: any RandomSource
        /// How the component supervisor restarts failures. Default one-for-one, 3 in 5 s, on
        /// this configuration's clock and random source.
        public var supervision: Supervisor.Configuration

        /// Creates a configuration; every other setting has the default documented on it.
        public init(
            baseURL: URL,
            transport: any HTTPTransport = URLSessionTransport(),
            security: SecurityGuard? = SecurityGuard(),
            auth: AuthInterceptor? = nil,
            logging: LoggingInterceptor? = nil,
            requestInterceptors: [any RequestInterceptor] = [],
            responseInterceptors: [any ResponseInterceptor] = [],
            retryPolicy: RetryPolicy = .default,
            retryBudget: RetryBudget = RetryBudget(),
            json: JSONCoding = JSONCoding(),
            timeout: Duration = .seconds(60),
            requestDeadline: Duration = .seconds(120),
            maxConcurrentRequests: Int = 64,
            maxQueuedRequests: Int = 1024,
            logger: (any NetworkLogger)? = nil,
            clock: any TimeSource = SystemTimeSource(),
            random: any RandomSource = SystemRandomSource(),
            supervision: Supervisor.Configuration? = nil
        ) {
            self.baseURL = baseURL
            self.transport = transport
            self.security = security
            self.auth = auth
            self.logging = logging
            self.requestInterceptors = requestInterceptors
            self.responseInterceptors = responseInterceptors
            self.retryPolicy = retryPolicy
            self.retryBudget = retryBudget
            self.json = json
            self.timeout = timeout
            self.requestDeadline = requestDeadline
            self.maxConcurrentRequests = max(1, maxConcurrentRequests)
            self.maxQueuedRequests = max(0, maxQueuedRequests)
            self.logger = logger
            self.clock = clock
            self.random = random
            self.supervision = supervision ?? Supervisor.Configuration(clock: clock, random: random)
        }
    }

    /// The settings the client runs with.
    public let configuration: Configuration
    private let pipeline = Mailbox<RequestPipelineMessage>(name: "RequestPipeline")
    private let supervisor: Supervisor
    private let started: Task<Void, Never>
    private let requestEvents = EventBroadcaster<RequestEvent>()
    private let encoder: JSONEncoder
    private let decoder: JSONDecoder
    private let nextID = Locked<UInt64>(0)

    /// Creates a client and starts its components.
    public init(configuration: Configuration) {
        self.configuration = configuration
        encoder = configuration.json.makeEncoder()
        decoder = configuration.json.makeDecoder()
        // Request side: yours, then the security guard (it sees the URL your interceptors left,
        // before any credential is attached), then auth, then logging (so it logs what is
        // sent). Response side: logging first (what arrived).
        var requestInterceptors: [any RequestInterceptor] = configuration.requestInterceptors
        if let security = configuration.security { requestInterceptors.append(security) }
        if let auth = configuration.auth { requestInterceptors.append(auth) }
        if let logging = configuration.logging { requestInterceptors.append(logging) }
        var responseInterceptors: [any ResponseInterceptor] = []
        if let logging = configuration.logging { responseInterceptors.append(logging) }
        if let security = configuration.security { responseInterceptors.append(security) }
        responseInterceptors += configuration.responseInterceptors
        let execution = RequestExecution(
            transport: configuration.transport,
            requestInterceptors: requestInterceptors,
            responseInterceptors: responseInterceptors,
            retryPolicy: configuration.retryPolicy,
            attemptTimeout: configuration.timeout,
            clock: configuration.clock,
            random: configuration.random,
            logger: configuration.logger,
            events: requestEvents,
            redaction: configuration.logging?.redaction ?? Redaction(),
            mailbox: pipeline)
        let limits = AdmissionLimits(
            maxConcurrentRequests: configuration.maxConcurrentRequests, maxQueuedRequests: configuration.maxQueuedRequests)
        let budget = configuration.retryBudget
        let supervisor = Supervisor(name: "courier", configuration: configuration.supervision)
        self.supervisor = supervisor
        let children: [ChildSpec] = [
            .component(mailbox: pipeline) { RequestPipeline(execution: execution, limits: limits, budget: budget) },
        ]
        started = Task { await supervisor.start(children) }
    }

    // MARK: Calls

    /// Sends `endpoint` and decodes its response body.
    /// - Throws: ``NetworkError``: the transport's errors, error statuses mapped
    ///   (401 `unauthorized`, 404 `notFound`, …), `decodingError` with the body's first bytes.
    public func send<Response>(_ endpoint: Endpoint<Response>) async throws(NetworkError) -> Response {
        let response = try await response(for: endpoint)
        if let empty = EmptyResponse() as? Response { return empty }
        do {
            return try decoder.decode(Response.self, from: response.body)
        } catch {
            throw .decodingError(underlying: error, bodyPrefix: Self.prefix(of: response.body))
        }
    }

    /// Sends `endpoint` and returns the raw 2xx response (status, headers, body).
    public func response<Response>(for endpoint: Endpoint<Response>) async throws(NetworkError) -> HTTPResponse {
        try await send(makeRequest(endpoint), options: endpoint.options)
    }

    /// Sends a prepared request through the pipeline (interceptors, retries, errors) and returns
    /// the raw 2xx response.
    public func send(_ request: HTTPRequest, options: RequestOptions = RequestOptions()) async throws(NetworkError) -> HTTPResponse {
        if Task.isCancelled { throw .cancelled }
        let id = RequestID(nextID.withLock { $0 += 1; return $0 })
        let deadline = configuration.clock.now + (options.deadline ?? configuration.requestDeadline)
        return try await Self.asNetworkError {
            try await pipeline.ask(
                { .execute(PendingRequest(id: id, request: request, options: options, deadline: deadline, reply: $0)) },
                onCancel: .cancel(id), cancelledError: NetworkError.cancelled)
        }
    }

    /// Builds the HTTP request of `endpoint`: URL, method, headers, JSON body.
    public func makeRequest<Response>(_ endpoint: Endpoint<Response>) throws(NetworkError) -> HTTPRequest {
        let path = endpoint.version.map { "\($0.rawValue)/\(endpoint.path)" } ?? endpoint.path
        let url = try URLBuilder.url(base: configuration.baseURL, path: path, query: endpoint.query)
        var request = HTTPRequest(method: endpoint.method, url: url, headers: endpoint.headers)
        if let body = endpoint.body {
            do {
                request.body = try encoder.encode(body)
            } catch {
                throw .encodingError(underlying: error)
            }
            if !request.headers.contains("Content-Type") {
                request.headers.add(name: "Content-Type", value: "application/json")
            }
        }
        if !request.headers.contains("Accept") {
            request.headers.add(name: "Accept", value: "application/json")
        }
        return request
    }

    // MARK: Observing

    /// Every request event from now on (started, attempt, retrying, finished, failed).
    /// A subscriber that falls behind keeps the newest `buffer` events, so a slow or forgotten
    /// subscriber cannot grow memory without bound.
    public func events(buffer: Int = 10_000) -> AsyncStream<RequestEvent> {
        requestEvents.subscribe(bufferingPolicy: .bufferingNewest(buffer))
    }

    /// The supervisor's events (components started, failed, restarted…).
    public func supervisionEvents() -> AsyncStream<SupervisionEvent> {
        supervisor.events()
    }

    /// The request pipeline's counters.
    public func pipelineStats() async throws(NetworkError) -> PipelineStats {
        try await Self.asNetworkError { try await pipeline.ask { .stats($0) } }
    }

    /// A client dropped without ``shutdown()`` shuts its components down in the background.
    deinit {
        let (supervisor, requestEvents, started) = (self.supervisor, self.requestEvents, self.started)
        Task.detached { await Self.shutDown(supervisor, requestEvents, after: started) }
    }

    /// Stops the components in reverse order, letting each drain its queue within its deadline;
    /// requests still running are cancelled and answered `componentUnavailable`, as are calls
    /// made afterwards.
    public func shutdown() async {
        await Self.shutDown(supervisor, requestEvents, after: started)
    }

    /// Shutdown proper, shared by ``shutdown()`` and `deinit` (which cannot use `self` later).
    private static func shutDown(
        _ supervisor: Supervisor, _ requestEvents: EventBroadcaster<RequestEvent>, after started: Task<Void, Never>
    ) async {
        await started.value
        await supervisor.shutdown()
        requestEvents.finish()
    }

    /// Runs a mailbox ask, whose errors are `NetworkError`s in practice, with a typed error.
    private static func asNetworkError<Value>(_ ask: () async throws -> Value) async throws(NetworkError) -> Value {
        do {
            return try await ask()
        } catch let error as NetworkError {
            throw error
        } catch {
            throw .unknown(underlying: error)
        }
    }

    private static func prefix(of body: Data) -> String {
        let head = body.prefix(256)
        let text = String(decoding: head, as: UTF8.self)
        return body.count > head.count ? text + "…" : text
    }
}

/// JSON settings for request bodies and response decoding (seed 002's snake_case and ISO-8601).
public struct JSONCoding: Sendable {
    /// How property names map to JSON keys.
    public enum Keys: Sendable { case asIs, snakeCase }
    /// How dates are written and read.
    public enum Dates: Sendable { case iso8601, secondsSince1970, millisecondsSince1970, foundationDefault }

    /// Key mapping. Default `asIs`.
    public var keys: Keys
    /// Date format. Default `iso8601`.
    public var dates: Dates

    /// Creates JSON settings; the defaults keep keys as they are and use ISO-8601 dates.
    public init(keys: Keys = .asIs, dates: Dates = .iso8601) {
        self.keys = keys
        self.dates = dates
    }

    /// An encoder with these settings. Keys are sorted, so the same value always encodes to the
    /// same bytes (stable bodies for signatures, caches and idempotent replays).
    public func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        if keys == .snakeCase { encoder.keyEncodingStrategy = .convertToSnakeCase }
        switch dates {
        case .iso8601: encoder.dateEncodingStrategy = .iso8601
        case .secondsSince1970: encoder.dateEncodingStrategy = .secondsSince1970
        case .millisecondsSince1970: encoder.dateEncodingStrategy = .millisecondsSince1970
        case .foundationDefault: break
        }
        return encoder
    }

    /// A decoder with these settings.
    public func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        if keys == .snakeCase { decoder.keyDecodingStrategy = .convertFromSnakeCase }
        switch dates {
        case .iso8601: decoder.dateDecodingStrategy = .iso8601
        case .secondsSince1970: decoder.dateDecodingStrategy = .secondsSince1970
        case .millisecondsSince1970: decoder.dateDecodingStrategy = .millisecondsSince1970
        case .foundationDefault: break
        }
        return decoder
    }
}
