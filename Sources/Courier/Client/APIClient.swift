import Foundation

/// The client users call: plain `async throws` methods over typed endpoints.
///
///     let client = APIClient(configuration: .init(baseURL: URL(string: "https://api.example.com")!))
///     let user = try await client.send(Endpoint<User>(path: "users/42", version: .v1)).value
///
/// Each call builds its request, runs it through the request chain (offline gate, cache,
/// admission, then per attempt: interceptors, security guard, auth, logging, transport; see
/// `RequestChain`) and decodes the answer: ``send(_:)`` returns the value with the response it
/// came from, ``data(for:)`` the raw response. The rest is grouped by what you do:
/// ``session``, ``cache``, ``offline``, ``connectivity``, ``cookies``, ``graphQL``. Behind them a
/// supervisor runs the components. Call ``shutdown()`` when done.
///
/// ## Groups the configuration did not ask for
///
/// ``session``, ``cache``, ``offline``, ``connectivity`` and ``cookies`` each need a component (or
/// store) that exists only when the configuration asks for it (``Configuration/session``,
/// ``Configuration/caching``, ``Configuration/offline``, ``Configuration/connectivity`` or
/// `offline`, ``Configuration/cookies``). Without it, one rule: every call of the group (methods
/// and properties alike) throws ``NetworkError/componentUnavailable(_:)`` carrying the group's
/// name (`"session"`, `"cache"`, `"offline"`, `"connectivity"`, `"cookies"`; its description
/// names the field to set), and every event stream of the group finishes at once. Nothing is
/// silently ignored and no value is made up.
///
/// ```swift
/// do {
///     try await client.session.signOut()
/// } catch .componentUnavailable("session") {
///     // this client was created without Configuration.session
/// }
/// ```
///
/// ``graphQL`` always works: its settings have defaults.
public final class APIClient: Sendable {
    /// The settings the client runs with.
    public let configuration: Configuration
    /// The components, their handles and the request chain (``ClientComponents``).
    let components: ClientComponents
    private let supervisor: Supervisor
    private let started: Task<Void, Never>
    /// Builds every endpoint's request against the base URL, checked and split once.
    private let requests: RequestBuilder
    /// Used by the inlinable ``send(_:)``.
    @usableFromInline let decoder: JSONDecoder

    /// Creates a client and starts its components.
    public init(configuration: Configuration) {
        self.configuration = configuration
        let requests = RequestBuilder(baseURL: configuration.baseURL, encoder: configuration.json.makeEncoder())
        self.requests = requests
        decoder = configuration.json.makeDecoder()
        let components = ClientComponents(configuration, base: requests.base)
        self.components = components
        session = ClientSession(
            tokens: components.tokens, events: components.tokenEvents,
            signedIn: { [coordinator = components.offline?.coordinator] in try? coordinator?.send(.signedIn) },
            signedOut: { [cache = components.cache] identity in cache?.forget(.dropIdentity(identity)) },
            clearCookies: { [store = components.cookies, cache = components.cache] () async throws(NetworkError) in
                guard let store, store.clearsOnSignOut else { return }
                try await ClientCookies(store: store, cleared: { cache?.forget(.dropCookies) }).clear()
            })
        cookies = ClientCookies(store: components.cookies, cleared: { [cache = components.cache] in cache?.forget(.dropCookies) })
        cache = ClientCache(handle: components.cache, events: components.cacheEvents, requests: requests)
        graphQL = ClientGraphQL(
            chain: components.chain, requests: requests, configuration: configuration.graphQL, cache: components.cache,
            webSockets: Self.graphQLWebSockets(components))
        offline = ClientOfflineQueue(
            offline: components.offline, gate: components.gate, requests: requests, chain: components.chain, decoder: decoder, graphQL: graphQL)
        connectivity = ClientConnectivity(offline: components.offline)
        if let records = graphQL.records, let offline = components.offline, offline.queue != nil {
            offline.settleQueuedLayers(of: records)
        }
        let supervisor = Supervisor(name: "courier", configuration: .init(
            restarts: configuration.restarts, clock: configuration.clock, random: configuration.random))
        self.supervisor = supervisor
        started = Task { [children = components.children] in await supervisor.start(children) }
    }

    // MARK: Calls

    /// Sends `endpoint` and decodes its response body, returned with the response it came from:
    /// as JSON with the client's settings; for `Endpoint<String>` as text (``HTTPResponse/text()``:
    /// the `charset` of its `Content-Type`, UTF-8 by default); for `Endpoint<Data>` the raw body;
    /// for `Endpoint<EmptyResponse>` nothing.
    /// - Throws: ``NetworkError``: the transport's errors, statuses other than 2xx mapped
    ///   (304 `notModified`, 401 `unauthorized`, 404 `notFound`, …, each with its response),
    ///   `decodingError` with the body's first bytes.
    ///
    /// Inlinable, so that it is specialised for `Value` where it is called.
    @inlinable
    public func send<Value>(_ endpoint: Endpoint<Value>) async throws(NetworkError) -> Response<Value> {
        try Response.decoding(try await response(for: endpoint.untyped), with: decoder)
    }

    /// The URL `endpoint` will be sent to, built as ``send(_:)`` builds it (base URL, version,
    /// percent-encoded segments, query), without sending anything: to log it, test it, or show
    /// it. Throws ``NetworkError/invalidURL(_:)`` for what `send` would refuse.
    ///
    /// ```swift
    /// try client.url(for: Endpoint<User>(path: "users/42", version: .v1))  // https://api.example.com/v1/users/42
    /// ```
    public func url<Value>(for endpoint: Endpoint<Value>) throws(NetworkError) -> URL {
        try requests.url(for: endpoint.untyped)
    }

    /// Sends `endpoint` and returns the raw final response (status, headers, body), undecoded:
    /// a 2xx, or a 3xx that was not followed (a 304, or any redirect when the policy does not
    /// follow it). Other statuses throw, as for ``send(_:)``.
    public func data<Value>(for endpoint: Endpoint<Value>) async throws(NetworkError) -> HTTPResponse {
        try await response(for: endpoint.untyped)
    }

    /// Sends a request you built yourself through the request chain (offline gate, cache,
    /// interceptors, retries, errors) and returns the raw final response (2xx, or a 3xx that
    /// was not followed).
    public func data(for request: HTTPRequest, options: RequestOptions = RequestOptions()) async throws(NetworkError) -> HTTPResponse {
        try await components.chain.send(request, options: options)
    }

    /// Builds `endpoint`'s request and runs it through the chain, on its caller's executor.
    @usableFromInline
    nonisolated(nonsending) func response(for endpoint: UntypedEndpoint) async throws(NetworkError) -> HTTPResponse {
        try await components.chain.send(try makeRequest(endpoint), options: endpoint.options)
    }

    /// Builds the HTTP request of `endpoint` (``RequestBuilder``).
    func makeRequest(_ endpoint: UntypedEndpoint) throws(NetworkError) -> HTTPRequest {
        try requests.request(for: endpoint)
    }

    // MARK: Grouped calls

    /// Sign in and out, refresh, the session's state and token events (``ClientSession``).
    public let session: ClientSession
    /// Invalidate, clear, the cache's counters and storage events (``ClientCache``).
    public let cache: ClientCache
    /// The cookies kept: read, set, remove, clear (``ClientCookies``).
    public let cookies: ClientCookies
    /// GraphQL queries, mutations and subscriptions through the same chain (``ClientGraphQL``).
    public let graphQL: ClientGraphQL

    /// The offline queue: enqueue, items, retry, remove, conflicts, sync, events and progress
    /// (``ClientOfflineQueue``).
    public let offline: ClientOfflineQueue
    /// The connectivity monitor's state, reports and changes (``ClientConnectivity``).
    public let connectivity: ClientConnectivity

    // MARK: Observing

    /// How many events every stream the client publishes keeps for a subscriber that falls
    /// behind, unless the subscriber asks for another number: the newest ones are kept, so a
    /// slow or forgotten subscriber cannot grow memory without bound.
    public static let eventBuffer = ClientGroup.eventBuffer

    /// Every request event from now on (started, attempt, retrying, finished, failed); a
    /// subscriber that falls behind keeps the newest `buffer` events.
    public func events(buffer: Int = APIClient.eventBuffer) -> AsyncStream<RequestEvent> {
        components.requestEvents.subscribe(bufferingPolicy: .bufferingNewest(buffer))
    }

    /// The supervisor's events (components started, failed, restarted…); a subscriber that
    /// falls behind keeps the newest `buffer` events. Subscribe right after creating the client
    /// to see the `started` events.
    public func supervisionEvents(buffer: Int = APIClient.eventBuffer) -> AsyncStream<SupervisionEvent> {
        supervisor.events(buffer: buffer)
    }

    /// The request pipeline's counters.
    public func pipelineStats() async throws(NetworkError) -> PipelineStats {
        do {
            return try await components.pipeline.stats()
        } catch {
            throw NetworkError(answer: error)
        }
    }

    // MARK: Lifecycle

    /// A client dropped without ``shutdown()`` shuts its components down in the background.
    deinit {
        let (supervisor, offline, finishEvents, started) = (self.supervisor, components.offline, self.finishEvents, self.started)
        let sockets = graphQL.webSockets
        Task.detached { await Self.shutDown(supervisor, offline, sockets, finishEvents: finishEvents, after: started) }
    }

    /// Stops the components in reverse order, letting each drain its queue within its deadline;
    /// requests still running are cancelled and answered `componentUnavailable`, as are calls
    /// made afterwards.
    public func shutdown() async {
        await Self.shutDown(supervisor, components.offline, graphQL.webSockets, finishEvents: finishEvents, after: started)
    }

    /// Ends every event stream the client publishes.
    private var finishEvents: @Sendable () -> Void {
        let components = components
        return {
            components.requestEvents.finish()
            components.tokenEvents.finish()
            components.cacheEvents.finish()
            components.offline?.finishEvents()
        }
    }

    /// Shutdown proper, shared by ``shutdown()`` and `deinit` (which cannot use `self` later).
    private static func shutDown(
        _ supervisor: Supervisor, _ offline: OfflineComponents?, _ sockets: GraphQLWebSockets, finishEvents: @Sendable () -> Void,
        after started: Task<Void, Never>
    ) async {
        await started.value
        await sockets.shutDown()
        await offline?.stopDrain()
        await supervisor.shutdown()
        finishEvents()
    }

}
