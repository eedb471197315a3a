import Foundation

/// The client users call: plain `async throws` methods over typed endpoints.
///
///     let client = APIClient(configuration: .init(baseURL: URL(string: "https://api.example.com")!))
///     let user = try await client.send(Endpoint<User>(path: "users/42", version: .v1)).value
///
/// ``send(_:)`` decodes the body and returns it with the response's status and headers;
/// ``data(for:)-(Endpoint<_>)`` returns the raw response. Behind them a supervisor runs the
/// components, and each call becomes one `execute` message to the request pipeline's mailbox;
/// users never see the messages. Call ``shutdown()`` when done.
public final class APIClient: Sendable {
    /// The settings the client runs with.
    public let configuration: Configuration
    private let pipeline: RequestPipeline.Handle
    /// The session's token store, when the configuration has a ``Configuration/session``.
    let tokens: TokenStore.Handle?
    let tokenEvents = EventBroadcaster<TokenEvent>()
    /// The response cache, when the configuration has ``Configuration/caching``.
    let cache: Cache.Handle?
    let cacheEvents = EventBroadcaster<CacheEvent>()
    /// The connectivity monitor, offline queue and sync coordinator, when configured.
    let offline: OfflineComponents?
    /// The interceptor that adds credentials, if any: the cache asks it which requests carry them.
    private let authentication: AuthInterceptor?
    private let supervisor: Supervisor
    private let started: Task<Void, Never>
    private let requestEvents = EventBroadcaster<RequestEvent>()
    /// The base URL checked and split once; every endpoint's URL is built from it. Exactly one of
    /// `base` and `invalidBase` is set: `nil` when the configured URL is invalid, and
    /// ``invalidBase`` says why. Read in place (`base!`, after checking `invalidBase`), never
    /// bound to a local: that is a retain and a release, per request, of an object every
    /// request shares (`Result.get()` made one).
    private let base: URLBuilder.Base?
    private let invalidBase: NetworkError?
    private let encoder: JSONEncoder
    /// Used by the inlinable ``send(_:)``.
    @usableFromInline let decoder: JSONDecoder

    /// Creates a client and starts its components.
    public init(configuration: Configuration) {
        self.configuration = configuration
        do throws(NetworkError) {
            base = try URLBuilder.Base(configuration.baseURL)
            invalidBase = nil
        } catch {
            base = nil
            invalidBase = error
        }
        encoder = configuration.json.makeEncoder()
        decoder = configuration.json.makeDecoder()
        // The token store starts before the pipeline (which asks it); its handle exists before
        // either, and its refresh call goes through the pipeline's execution, unadmitted.
        let tokenMailbox = Mailbox<TokenStore.Message>(name: "TokenStore")
        let tokens = configuration.session.map { _ in
            TokenStore.Handle(mailbox: tokenMailbox, credential: LatestValue(.unpublished), clock: configuration.clock)
        }
        self.tokens = tokens
        let pipelineConfiguration = configuration.pipeline(tokens: tokens)
        // The first auth interceptor the request meets: one in the user's own interceptors, else
        // the client's.
        authentication = configuration.requestInterceptors.lazy.compactMap { $0 as? AuthInterceptor }.first ?? pipelineConfiguration.auth
        let (pipeline, pipelineChild) = RequestPipeline.child(pipelineConfiguration, events: requestEvents)
        self.pipeline = pipeline
        var children = [pipelineChild]
        // The cache starts after the pipeline, whose mailbox its fetches use.
        if let caching = configuration.caching {
            let mailbox = Mailbox<Cache.Message>(name: "Cache")
            let shelf = Locked(CacheShelf(storage: CacheStorage(maxEntries: caching.maxEntries, maxBytes: caching.maxBytes)))
            var environment = Cache.Environment(
                mailbox: mailbox,
                fetch: { request, options, reply in pipeline.submit(request, options: options, reply: reply) },
                fetchFailure: { pipeline.failure($0) },
                cancelFetch: { pipeline.cancel($0) },
                maxEntries: caching.maxEntries, maxBytes: caching.maxBytes,
                defaultTTL: Int(caching.defaultTTL.inSeconds.rounded(.down)), clock: configuration.clock, shelf: shelf)
            environment.fault = caching.fault
            environment.events = cacheEvents
            environment.persistence = caching.storageFile.map { (path: $0.path, maxBytes: caching.storageMaxBytes) }
            cache = Cache.Handle(
                mailbox: mailbox, shelf: shelf, clock: configuration.clock, defaultPolicy: caching.policy, defaultTTL: caching.ttl)
            children.append(.component(mailbox: mailbox) { [environment] in Cache(environment) })
        } else {
            cache = nil
        }
        let cache = self.cache
        offline = OfflineComponents(configuration) { request, requiresAuth in
            do {
                let response = try await pipeline.send(request, options: RequestOptions(retryPolicy: .never, requiresAuth: requiresAuth))
                cache?.forget(.invalidate(url: request.url.absoluteString))
                return .success(response)
            } catch {
                return .failure(NetworkError(answer: error))
            }
        }
        children += offline?.children ?? []
        // Writes stored by an earlier run are drained without waiting for a new one.
        if let offline { Task { await offline.resumeStoredWrites() } }
        if let session = configuration.session, let tokens {
            let environment = TokenStore.Environment(
                mailbox: tokenMailbox, credential: tokens.credential, events: tokenEvents, persistence: session.persistence,
                refresh: Self.refreshCall(session, base: base.map { .success($0) } ?? .failure(invalidBase!), pipeline: pipeline, json: configuration.json, clock: configuration.clock),
                threshold: session.refreshThreshold, maxRefreshes: session.maxRefreshes, refreshWindow: session.refreshWindow,
                clock: configuration.clock)
            children.insert(.component(mailbox: tokenMailbox) { TokenStore(environment) }, at: 0)
        }
        let supervisor = Supervisor(name: "courier", configuration: .init(
            restarts: configuration.restarts, clock: configuration.clock, random: configuration.random))
        self.supervisor = supervisor
        started = Task { [children] in await supervisor.start(children) }
    }

    // MARK: Calls

    /// Sends `endpoint` and decodes its response body, returned with the response it came from.
    /// - Throws: ``NetworkError``: the transport's errors, statuses other than 2xx mapped
    ///   (304 `notModified`, 401 `unauthorized`, 404 `notFound`, …, each with its response),
    ///   `decodingError` with the body's first bytes.
    ///
    /// Inlinable, so that it is specialised for `Value` where it is called: unspecialised, each
    /// call looked up the types `Response<Value>` and `Value?` at run time.
    @inlinable
    public func send<Value>(_ endpoint: Endpoint<Value>) async throws(NetworkError) -> Response<Value> {
        let response = try await response(for: endpoint.untyped)
        // A 3xx that was not followed (a 304, redirects off) has nothing to decode.
        if let error = NetworkError(response: response) { throw error }
        if Value.self == EmptyResponse.self, let empty = EmptyResponse() as? Value {
            return Response(value: empty, response: response)
        }
        do {
            return Response(value: try decoder.decode(Value.self, from: response.body), response: response)
        } catch {
            throw .decodingError(underlying: error, bodyPrefix: Self.prefix(of: response.body))
        }
    }

    /// The URL `endpoint` will be sent to, built as ``send(_:)`` builds it (base URL, version,
    /// percent-encoded segments, query), without sending anything: to log it, test it, or show
    /// it. Throws ``NetworkError/invalidURL(_:)`` for what `send` would refuse.
    ///
    /// ```swift
    /// try client.url(for: Endpoint<User>(path: "users/42", version: .v1))  // https://api.example.com/v1/users/42
    /// ```
    public func url<Value>(for endpoint: Endpoint<Value>) throws(NetworkError) -> URL {
        if let invalidBase { throw invalidBase }
        return try base!.url(for: endpoint.untyped)
    }

    /// Sends `endpoint` and returns the raw final response (status, headers, body), undecoded:
    /// a 2xx, or a 3xx that was not followed (a 304, or any redirect when the policy does not
    /// follow it). Other statuses throw, as for ``send(_:)``.
    public func data<Value>(for endpoint: Endpoint<Value>) async throws(NetworkError) -> HTTPResponse {
        try await response(for: endpoint.untyped)
    }

    /// What ``data(for:)`` does for an endpoint, run on its caller's executor: ``send(_:)``
    /// calls it after its own hop off the caller's actor, where a second hop would find it is
    /// already on the right executor, and pay for finding out.
    @usableFromInline
    nonisolated(nonsending) func response(for endpoint: UntypedEndpoint) async throws(NetworkError) -> HTTPResponse {
        if let invalidBase { throw invalidBase }
        let text = try base!.text(for: endpoint)
        let headers = requestHeaders(endpoint)
        // A fresh hit is looked up by the URL's text: it never pays for parsing the URL. (Were
        // the text to differ from the parsed URL's, the lookup would only miss here.) Not for a
        // request with a body, whose encoding error must come first.
        var shelf = ShelfCheck.notChecked
        // The cache's handle is read in place (`cache?`, `cache!`), never bound to a local: that
        // is a retain and a release, per request, of an object every request shares.
        if cache != nil, endpoint.method == .get, endpoint.body == nil {
            if Task.isCancelled { throw .cancelled }
            let key = cacheIdentity(headers: headers, urlText: text, endpoint.options).map { CacheKey(url: text, identity: $0) }
            if let key, answersFromShelf(endpoint.options), let fresh = cache?.freshResponse(headers: headers, key: key) {
                return fresh
            }
            shelf = .checked(key)
        }
        let request = try makeRequest(endpoint, base: base!, url: URLBuilder.parse(text), headers: headers)
        // Cancellation is checked once: before the shelf lookup if there was one, else here.
        if case .notChecked = shelf, Task.isCancelled { throw .cancelled }
        return try await data(for: request, options: endpoint.options, shelf: shelf)
    }

    /// Sends a request you built yourself through the pipeline (interceptors, retries, errors)
    /// and returns the raw final response (2xx, or a 3xx that was not followed).
    /// (`consuming`: the client adds what it must to the request it was given instead of a copy.)
    public func data(for request: consuming HTTPRequest, options: RequestOptions = RequestOptions()) async throws(NetworkError) -> HTTPResponse {
        if Task.isCancelled { throw .cancelled }
        return try await data(for: request, options: options, shelf: .notChecked)
    }

    /// Whether the caller of ``data(for:options:shelf:)`` already looked for a fresh hit, and
    /// the key it looked up if so (`nil`: the request is not cached at all).
    private enum ShelfCheck {
        case notChecked
        case checked(CacheKey?)
    }

    /// ``data(for:options:)``, after the lookup `shelf` says was made.
    private nonisolated(nonsending) func data(for request: consuming HTTPRequest, options: RequestOptions, shelf: ShelfCheck) async throws(NetworkError) -> HTTPResponse {
        if cache != nil, request.method == .get, let key = cacheKey(for: request, options, shelf: shelf) {
            let (policy, ttl) = (options.cachePolicy ?? cache!.defaultPolicy, options.cacheTTL ?? cache!.defaultTTL)
            // A fresh hit costs no message; anything else asks the cache.
            if case .notChecked = shelf, answersFromShelf(options), let fresh = cache?.freshResponse(headers: request.headers, key: key) {
                return fresh
            }
            // The request is moved into what the cache holds, and taken back if it must go on.
            let cached = CacheRequest(request: consume request, key: key, options: options, policy: policy, ttl: ttl)
            do {
                return try await cache!.get(cached)
            } catch RuntimeError.componentRestarted {
                // The cache failed while holding this request: the network answers instead.
                request = cached.request
            } catch {
                throw NetworkError(answer: error)
            }
        }
        // Without a cache nothing is ever stored: `cacheOnly` has nothing to answer with (every
        // other policy asks the network, as documented on `RequestOptions.cachePolicy`).
        if cache == nil, options.cachePolicy == .cacheOnly { throw .notCached }
        var request = consume request
        // A request with its own Authorization is not queueable: that header is never stored.
        let queueable = options.offline == .queueWhenOffline && Self.unsafeMethods.contains(request.method)
            && !request.headers.contains("Authorization")
        if queueable, let offline, let queue = offline.queue {
            // The key goes on the live attempt too: if the connection drops after the server
            // applied the write, the replay carries the same key.
            if !request.headers.contains("Idempotency-Key") {
                request.headers.add(name: "Idempotency-Key", value: UUID().uuidString)
            }
            // Offline, or older writes still waiting (a live write must not overtake them): queue it.
            // Online, a write the queue cannot take (full, storage failing) goes out live instead.
            if offline.connectivity.value == .offline {
                throw .queued(itemID: try await offline.enqueue(request, requiresAuth: options.requiresAuth))
            }
            if queue.waiting.value > 0, let id = try? await offline.enqueue(request, requiresAuth: options.requiresAuth) {
                throw .queued(itemID: id)
            }
        }
        let response: HTTPResponse
        do {
            response = try await pipeline.send(request, options: options)
            offline?.learn(from: .success(response))
        } catch {
            let error = NetworkError(answer: error)
            offline?.learn(from: .failure(error))
            if queueable, let offline, offline.queue != nil, case .noConnection = error {
                throw .queued(itemID: try await offline.enqueue(request, requiresAuth: options.requiresAuth))
            }
            throw error
        }
        // A write that succeeded makes the stored reads of its URL stale.
        if Self.unsafeMethods.contains(request.method) {
            cache?.forget(.invalidate(url: request.url.absoluteString))
        }
        return response
    }

    /// What a GET's response is filed under, `nil` if it is not cached at all. Entries are filed
    /// under the parsed URL's text (what invalidations name): the key `shelf` looked up by is
    /// kept when its text is the same (a key hashes its URL once, as it is made).
    private func cacheKey(for request: borrowing HTTPRequest, _ options: RequestOptions, shelf: ShelfCheck) -> CacheKey? {
        let url = request.url.absoluteString
        switch shelf {
        case .notChecked:
            return cacheIdentity(headers: request.headers, urlText: url, options).map { CacheKey(url: url, identity: $0) }
        case .checked(let key):
            return key.map { $0.url == url ? $0 : CacheKey(url: url, identity: $0.identity) }
        }
    }

    /// The methods that write: a success invalidates cached reads; they may be queued offline.
    static let unsafeMethods: [HTTPMethod] = [.post, .put, .patch, .delete]

    /// Whose cached responses `request` may use: "" (shared) when it carries no credentials, the
    /// session's identity when it carries the session's, and `nil` (not cached at all) when it
    /// carries credentials of unknown identity (its own `Authorization`, or a token closure's).
    private func cacheIdentity(headers: HTTPHeaders, urlText: String, _ options: RequestOptions) -> String? {
        if headers.contains("Authorization") { return nil }
        // The interceptor is read in place: bound to a local, it was copied, a retain of each of
        // its fields, which every request shares. Only the credential's identity is read (a copy
        // of the credential retained its shared `Authorization`).
        guard options.requiresAuth, let isPublic = authentication?.isPublic(pathOfURLText: urlText) else { return "" }
        return isPublic ? "" : tokens?.credential.read { $0.identity }
    }

    /// Whether a request with `options` may be answered from the shelf without a message: a
    /// `cacheFirst` read that stores responses.
    private func answersFromShelf(_ options: RequestOptions) -> Bool {
        (options.cachePolicy ?? cache?.defaultPolicy) == .cacheFirst && (options.cacheTTL ?? cache?.defaultTTL) != .noCache
    }

    /// Builds the HTTP request of `endpoint`: URL, method, headers, JSON body.
    func makeRequest(_ endpoint: UntypedEndpoint) throws(NetworkError) -> HTTPRequest {
        if let invalidBase { throw invalidBase }
        return try makeRequest(endpoint, base: base!, url: base!.url(for: endpoint), headers: requestHeaders(endpoint))
    }

    /// The request of `endpoint` from its parts: `url` built on `base`, `headers` from
    /// ``requestHeaders(_:)``; encodes the body.
    private func makeRequest(
        _ endpoint: UntypedEndpoint, base: URLBuilder.Base, url: URL, headers: HTTPHeaders
    ) throws(NetworkError) -> HTTPRequest {
        var body: Data?
        if let encodable = endpoint.body {
            do {
                body = try encoder.encode(encodable)
            } catch {
                throw .encodingError(underlying: error)
            }
        }
        return HTTPRequest(method: endpoint.method, url: url, headers: headers, body: body, knownOrigin: base.origin)
    }

    /// The headers of `endpoint`'s request: its own, plus `Content-Type` (with a body) and
    /// `Accept` when it has none, with room for what the pipeline adds (User-Agent,
    /// Authorization).
    private func requestHeaders(_ endpoint: UntypedEndpoint) -> HTTPHeaders {
        var headers = HTTPHeaders(copying: endpoint.headers, extra: 4)
        if endpoint.body != nil, !headers.contains("Content-Type") {
            headers.add(name: "Content-Type", value: "application/json")
        }
        if !headers.contains("Accept") {
            headers.add(name: "Accept", value: "application/json")
        }
        return headers
    }

    // MARK: Observing

    /// Every request event from now on (started, attempt, retrying, finished, failed).
    /// A subscriber that falls behind keeps the newest `buffer` events, so a slow or forgotten
    /// subscriber cannot grow memory without bound.
    public func events(buffer: Int = 10_000) -> AsyncStream<RequestEvent> {
        requestEvents.subscribe(bufferingPolicy: .bufferingNewest(buffer))
    }

    /// The supervisor's events (components started, failed, restarted…). Subscribe right after
    /// creating the client to see the `started` events.
    public func supervisionEvents() -> AsyncStream<SupervisionEvent> {
        supervisor.events()
    }

    /// The request pipeline's counters.
    public func pipelineStats() async throws(NetworkError) -> PipelineStats {
        do {
            return try await pipeline.stats()
        } catch {
            throw NetworkError(answer: error)
        }
    }

    // MARK: Lifecycle

    /// A client dropped without ``shutdown()`` shuts its components down in the background.
    deinit {
        let (supervisor, offline, finishEvents, started) = (self.supervisor, self.offline, self.finishEvents, self.started)
        Task.detached { await Self.shutDown(supervisor, offline, finishEvents: finishEvents, after: started) }
    }

    /// Stops the components in reverse order, letting each drain its queue within its deadline;
    /// requests still running are cancelled and answered `componentUnavailable`, as are calls
    /// made afterwards.
    public func shutdown() async {
        await Self.shutDown(supervisor, offline, finishEvents: finishEvents, after: started)
    }

    /// Ends every event stream the client publishes.
    private var finishEvents: @Sendable () -> Void {
        let (requestEvents, tokenEvents, cacheEvents, offline) = (self.requestEvents, self.tokenEvents, self.cacheEvents, self.offline)
        return {
            requestEvents.finish()
            tokenEvents.finish()
            cacheEvents.finish()
            offline?.finishEvents()
        }
    }

    /// Shutdown proper, shared by ``shutdown()`` and `deinit` (which cannot use `self` later).
    private static func shutDown(
        _ supervisor: Supervisor, _ offline: OfflineComponents?, finishEvents: @Sendable () -> Void, after started: Task<Void, Never>
    ) async {
        await started.value
        await offline?.stopDrain()
        await supervisor.shutdown()
        finishEvents()
    }

    // MARK: Helpers

    @usableFromInline
    static func prefix(of body: Data) -> String {
        let head = body.prefix(256)
        let text = String(decoding: head, as: UTF8.self)
        return body.count > head.count ? text + "…" : text
    }
}
