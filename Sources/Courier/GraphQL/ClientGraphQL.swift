import Foundation

/// GraphQL over HTTP through the client's whole chain (interceptors, auth and its refresh,
/// retries, the cache, the offline queue): `client.graphQL`. Where operations go and how is
/// ``APIClient/Configuration/graphQL``.
///
/// ```swift
/// let hero = try await client.graphQL.fetch(HeroQuery(variables: .init(id: "1000"))).hero
/// ```
///
/// - **Queries** use the request's cache policy (Apollo's `returnCacheDataElseFetch` is
///   ``CachePolicy/cacheFirst``, `fetchIgnoringCacheData` ``CachePolicy/networkOnly``,
///   `returnCacheDataDontFetch` ``CachePolicy/cacheOnly``; `returnCacheDataAndFetch` is a
///   response's `stale-while-revalidate`), filed under the endpoint's URL, the operation's name,
///   the document's SHA-256 and the variables' canonical JSON (key order does not matter), and
///   per signed-in identity. Identical concurrent queries share one request, with or without
///   a cache (a caller that leaves does not cancel it for the others). A result with errors is
///   not kept. Queries are retried as GETs are.
/// - **Mutations** are never cached; they are retried only with an `Idempotency-Key`, and go to
///   the offline queue through ``ClientOfflineQueue/perform(_:headers:options:)`` like any write. Say what they
///   make stale with ``invalidate(_:)``.
/// - An error whose `extensions.code` is `UNAUTHENTICATED` is handled as a 401, in a 2xx or a
///   4xx (GraphQL over HTTP's `application/graphql-response+json`): one refresh of the session
///   (shared by every request that saw it), one replay. A query is replayed even when the error
///   sits beside partial data; a mutation only when there is no data (else it ran).
/// - **Persisted queries** (``GraphQLConfiguration/persistedQueries``) fall back as Apollo's
///   client does: a server that answers `PersistedQueryNotSupported`, or a 400 to the hash-only
///   form, gets the document, and this client stops sending hashes to that endpoint.
/// - **Queries as `GET`** that the server refuses (a 405, or an HTML page) throw
///   ``NetworkError/invalidResponse(_:)`` saying the server does not accept GET queries.
/// - Data is decoded with a plain `JSONDecoder` (GraphQL's names are the schema's), not the
///   client's ``JSONCoding``.
public struct ClientGraphQL: Sendable {
    let chain: RequestChain
    let requests: RequestBuilder
    let configuration: GraphQLConfiguration
    /// The cache, whose entries for a query's results this group forgets.
    let cache: Cache.Handle?
    /// A `POST` to the GraphQL endpoint (no headers, no body) and its URL's text, built once.
    let post: Result<(request: HTTPRequest, url: String), NetworkError>
    /// The endpoints (URL text) that answered they do not support persisted queries: sent the
    /// document from then on, for the client's life. Shared by the copies of this value.
    let persistedQueriesRefused = Locked<Set<String>>([])
    /// The WebSockets subscriptions share, per endpoint and identity.
    let webSockets: GraphQLWebSockets
    /// The normalized records (``GraphQLConfiguration/normalizedCache``), shared by the copies
    /// of this value; nil when off.
    let records: GraphQLNormalizedCache?

    init(
        chain: RequestChain, requests: RequestBuilder, configuration: GraphQLConfiguration, cache: Cache.Handle?,
        webSockets: GraphQLWebSockets
    ) {
        (self.chain, self.requests, self.configuration, self.cache) = (chain, requests, configuration, cache)
        self.webSockets = webSockets
        let tokens = webSockets.tokens
        records = configuration.normalizedCache.map { settings in
            GraphQLNormalizedCache(
                configuration: settings,
                identity: {
                    guard let tokens else { return .some(nil) }
                    return tokens.credential.read { $0.isPublished ? .some($0.identity) : nil }
                },
                loadIdentity: { _ = try? await tokens?.state() })
        }
        post = Result { () throws(NetworkError) in
            let base = try requests.base.get()
            let url = try base.url(for: Endpoint<Data>(path: configuration.path, version: configuration.version).untyped)
            return (HTTPRequest(method: .post, url: url, headers: [:], body: nil, knownOrigin: base.origin), url.absoluteString)
        }
    }

    /// Runs `query` and returns its data.
    /// - Throws: ``NetworkError/graphQL(_:)`` when the response has errors (with the partial
    ///   data), or what ``APIClient/send(_:)`` throws.
    public func fetch<Query: GraphQLQuery>(
        _ query: Query, headers: HTTPHeaders = [:], options: RequestOptions = RequestOptions()
    ) async throws(NetworkError) -> Query.Data {
        try Self.data(of: try await result(for: query, headers: headers, options: options))
    }

    /// Runs `mutation` and returns its data; as ``fetch(_:headers:options:)``, never cached.
    /// Give it an `Idempotency-Key` in `headers` to have it retried (and replayed from the
    /// offline queue under that key).
    public func perform<Mutation: GraphQLMutation>(
        _ mutation: Mutation, headers: HTTPHeaders = [:], options: RequestOptions = RequestOptions()
    ) async throws(NetworkError) -> Mutation.Data {
        try Self.data(of: try await result(for: mutation, headers: headers, options: options))
    }

    /// Runs `operation` and returns its whole result: the data (partial or none) and the errors
    /// beside it, without throwing for GraphQL errors. A non-2xx whose body is a GraphQL
    /// response throws ``NetworkError/graphQL(_:)`` with its errors.
    public func result<Operation: GraphQLOperation>(
        for operation: Operation, headers: HTTPHeaders = [:], options: RequestOptions = RequestOptions()
    ) async throws(NetworkError) -> GraphQLResult<Operation.Data> {
        // Without `queuesWhenOffline` nothing is queued: there is always a result.
        try await outcome(for: operation, headers: headers, options: options, queuesWhenOffline: false).result!
    }

    /// ``result(for:headers:options:)``, or, with `queuesWhenOffline` (`client.offline.perform`),
    /// the id of the offline item the write was stored as instead of sent. A result's data is
    /// merged into the normalized records, if any, unless `storesRecords` is false (`noCache`).
    func outcome<Operation: GraphQLOperation>(
        for operation: Operation, headers: HTTPHeaders, options: RequestOptions, queuesWhenOffline: Bool, storesRecords: Bool = true
    ) async throws(NetworkError) -> (result: GraphQLResult<Operation.Data>?, queuedItemID: Int64?) {
        guard Operation.kind != .subscription else {
            throw .invalidRequest("\(Operation.operationName) is a subscription: use subscribe(_:headers:options:stallTimeout:maxPartBytes:)")
        }
        let variables = try GraphQLRequestBody.variablesJSON(operation.variables)
        var persisted = usesPersistedQueries
        var sendsDocument = !persisted
        let viaGET = Operation.kind == .query && configuration.queriesAsGET
        while true {
            var (request, options, settings) = try makeRequest(
                operation, variables: variables, persisted: persisted, sendsDocument: sendsDocument, headers: headers, options: options)
            settings.queuesWhenOffline = queuesWhenOffline
            let response: HTTPResponse
            do {
                response = try await chain.send(request, options: options, settings: settings)
            } catch {
                guard let answer = error.response else { throw error }
                if viaGET, answer.status == 405 || Self.isHTML(answer) { throw Self.refusesGET(answer, url: request.url) }
                let errors = GraphQLEnvelope.errors(in: answer.body) ?? []
                if !sendsDocument, errors.contains(where: Self.asksForDocument) { sendsDocument = true; continue }
                if persisted, Self.refusesPersistedQueries(answer, errors: errors, hashOnly: !sendsDocument) {
                    refusePersistedQueries()
                    (persisted, sendsDocument) = (false, true)
                    continue
                }
                guard !errors.isEmpty else { throw error }
                throw .graphQL(GraphQLFailure(errors: errors, data: nil, response: answer))
            }
            if let id = response.queuedItemID { return (nil, id) }
            if viaGET, Self.isHTML(response) { throw Self.refusesGET(response, url: request.url) }
            let result = try GraphQLEnvelope.result(Operation.Data.self, from: response, decoder: JSONDecoder())
            if !result.errors.isEmpty, let key = settings.readKey {
                cache?.forget(.invalidate(url: key))
            }
            if !sendsDocument, result.errors.contains(where: Self.asksForDocument) {
                sendsDocument = true
                continue
            }
            if persisted, result.errors.contains(where: Self.saysPersistedQueriesUnsupported) {
                refusePersistedQueries()
                (persisted, sendsDocument) = (false, true)
                continue
            }
            if storesRecords, let records { records.write(responseBody: response.body, try records.access(operation)) }
            return (result, nil)
        }
    }

    /// Subscribes to `subscription` with the endpoint's
    /// ``GraphQLConfiguration/subscriptionTransport`` (by default Apollo's multipart protocol:
    /// one `POST` answered by a `multipart/mixed` body of results; or graphql-sse; or a
    /// WebSocket shared by every subscription to the endpoint) and returns
    /// its results as they come (``GraphQLSubscriptionResults``: the connection opens at the
    /// first `next()`).
    ///
    /// ```swift
    /// for try await result in client.graphQL.subscribe(ReviewAdded(variables: .init(episode: "JEDI"))) {
    ///     print(result.data?.reviewAdded.stars ?? 0, result.errors)
    /// }
    /// ```
    ///
    /// The request passes the chain as ``APIClient/bytes(for:stallTimeout:maxBytes:)``'s does
    /// (interceptors, auth and its 401 refresh, the guard, logging; never the cache).
    /// `stallTimeout` bounds the wait for the next part (heartbeats included); `maxPartBytes`
    /// the size of one part (or event).
    public func subscribe<Subscription: GraphQLSubscription>(
        _ subscription: Subscription, headers: HTTPHeaders = [:], options: RequestOptions = RequestOptions(),
        stallTimeout: Duration = StreamedCall.defaultStallTimeout, maxPartBytes: Int = 1 << 20
    ) -> GraphQLSubscriptionResults<Subscription> {
        GraphQLSubscriptionResults(
            graphQL: self, subscription: subscription, headers: headers, options: options, stallTimeout: stallTimeout,
            maxPartBytes: maxPartBytes)
    }

    /// Opens `subscription`'s connection: the response at its head and the body to read.
    func open<Subscription: GraphQLSubscription>(
        _ subscription: Subscription, headers: HTTPHeaders, options: RequestOptions, stallTimeout: Duration
    ) async throws(NetworkError) -> (HTTPResponse, ResponseBytes) {
        let variables = try GraphQLRequestBody.variablesJSON(subscription.variables)
        var headers = headers
        if !headers.contains("Accept") { headers["Accept"] = "multipart/mixed;subscriptionSpec=\"1.0\", application/json" }
        let (request, options, settings) = try makeRequest(
            subscription, variables: variables, persisted: usesPersistedQueries, sendsDocument: true, headers: headers, options: options)
        do throws(NetworkError) {
            return try await StreamedCall(chain: chain).bytes(
                for: request, options: options, settings: settings, stallTimeout: stallTimeout, maxBytes: .max)
        } catch {
            throw Self.withGraphQLErrors(error)
        }
    }

    /// `subscription`'s graphql-sse stream (distinct connections): a `POST` asking for
    /// `text/event-stream`, read as Server-Sent Events whose normal end is the end; a broken
    /// connection subscribes again, up to five attempts in a row without an answer (as the
    /// graphql-sse client).
    func events<Subscription: GraphQLSubscription>(
        _ subscription: Subscription, headers: HTTPHeaders, options: RequestOptions, stallTimeout: Duration, maxEventBytes: Int
    ) -> ServerSentEvents {
        var headers = headers
        if !headers.contains("Accept") { headers["Accept"] = "text/event-stream" }
        if !headers.contains("Cache-Control") { headers["Cache-Control"] = "no-cache" }
        let made = Result { () throws(NetworkError) -> (HTTPRequest, RequestOptions, CallSettings) in
            let variables = try GraphQLRequestBody.variablesJSON(subscription.variables)
            return try makeRequest(
                subscription, variables: variables, persisted: usesPersistedQueries, sendsDocument: true, headers: headers, options: options)
        }
        // The sequence reconnects; the pipeline's own retries underneath would double it.
        var options = (try? made.get())?.1 ?? options
        options.retryPolicy = options.retryPolicy ?? .never
        var events = ServerSentEvents(
            call: StreamedCall(chain: chain), clock: chain.settings.clock, request: made.map(\.0), options: options,
            settings: ServerSentEvents.Settings(
                retryDelay: ServerSentEvents.defaultRetryDelay, maxConsecutiveFailures: 5, stallTimeout: stallTimeout,
                maxEventBytes: maxEventBytes, streamEnd: .finish))
        events.callSettings = (try? made.get())?.2 ?? CallSettings()
        return events
    }

    /// `subscription`'s events over the endpoint's shared GraphQL WebSocket (made by the first
    /// subscription to it under the signed-in identity): the stream's end, or dropping it,
    /// stops the subscription (`complete`).
    func webSocketEvents<Subscription: GraphQLSubscription>(
        _ subscription: Subscription, protocols: [GraphQLWebSocketProtocol], headers: HTTPHeaders, options: RequestOptions
    ) async throws(NetworkError) -> AsyncStream<GraphQLWebSocketEvent> {
        let variables = try GraphQLRequestBody.variablesJSON(subscription.variables)
        var (handshake, requestOptions, _) = try makeRequest(
            subscription, variables: variables, persisted: false, sendsDocument: true, headers: [:], options: options)
        let payload = handshake.body ?? Data("{}".utf8)
        (handshake.method, handshake.headers, handshake.body) = (.get, headers, nil)
        // The connection reconnects; the pipeline's own retries underneath would double it.
        requestOptions.retryPolicy = requestOptions.retryPolicy ?? .never
        let tokens = requestOptions.requiresAuth ? webSockets.tokens : nil
        let key = GraphQLWebSockets.Key(
            url: handshake.url.absoluteString, protocols: protocols, identity: tokens?.credential.read { $0.identity })
        let (settings, webSockets) = (configuration.webSocket, webSockets)
        let connection = webSockets.connection(for: key) {
            GraphQLWebSocketConnection.Environment(
                request: handshake, requestOptions: requestOptions, protocols: protocols, options: settings,
                open: webSockets.open, clock: chain.settings.clock, random: chain.settings.random, tokens: tokens,
                connectivity: webSockets.connectivity)
        }
        let (stream, continuation) = AsyncStream<GraphQLWebSocketEvent>.makeStream()
        let id = await connection.add(payload: payload, continuation: continuation)
        continuation.onTermination = { _ in Task { await connection.remove(id) } }
        return stream
    }

    /// `error`, as ``NetworkError/graphQL(_:)`` when its response's body holds GraphQL errors
    /// (a subscription refused before its stream: a bad document, a 4xx of GraphQL over HTTP).
    static func withGraphQLErrors(_ error: NetworkError) -> NetworkError {
        guard let response = error.response, let errors = GraphQLEnvelope.errors(in: response.body), !errors.isEmpty else { return error }
        return .graphQL(GraphQLFailure(errors: errors, data: nil, response: response))
    }

    /// Forgets every stored result of `query`'s operation, whatever its variables: what a
    /// mutation made stale.
    public func invalidate<Query: GraphQLQuery>(_ query: Query.Type) throws(NetworkError) {
        let endpoint = try post.get().url
        cache?.forget(.invalidatePrefix(Self.readKeyPrefix(endpoint: endpoint, operationName: Query.operationName)))
    }

    // MARK: Requests

    /// Whether operations go as persisted queries: configured, and the endpoint has not said it
    /// does not support them.
    var usesPersistedQueries: Bool {
        guard configuration.persistedQueries, case .success(let post) = post else { return false }
        return !persistedQueriesRefused.withLock { $0.contains(post.url) }
    }

    /// Remembers that the endpoint does not support persisted queries.
    private func refusePersistedQueries() {
        guard case .success(let post) = post else { return }
        persistedQueriesRefused.withLock { _ = $0.insert(post.url) }
    }

    /// The HTTP request of `operation` (GraphQL over HTTP), and the options and settings it goes
    /// with (a query's read key, the credential check). `persisted` adds the document's hash
    /// as Apollo's `persistedQuery` extension; `sendsDocument` the document.
    func makeRequest<Operation: GraphQLOperation>(
        _ operation: Operation, variables: Data?, persisted: Bool, sendsDocument: Bool, headers: HTTPHeaders, options: RequestOptions
    ) throws(NetworkError) -> (HTTPRequest, RequestOptions, CallSettings) {
        let graphQL = configuration
        let document = try GraphQLDocument.of(Operation.self)
        // With records, objects must name their type (their record key needs it).
        let sent = configuration.normalizedCache == nil
            ? GraphQLDocument.Variant(text: Operation.document, json: document.documentJSON, hash: document.hash) : document.typenamed
        let hash = sent.hash
        let extensions: [String: JSONValue]? = persisted
            ? ["persistedQuery": .object(["version": .number(1), "sha256Hash": .string(hash)])] : nil
        var headers = headers
        if !headers.contains("Accept") { headers["Accept"] = "application/graphql-response+json, application/json" }
        var options = options
        // Metrics and events name the call by its operation, as one endpoint serves them all.
        if options.operationName == nil, !document.name.isEmpty { options.operationName = document.name }
        var settings = CallSettings(credentialRejected: Operation.kind == .mutation ? Self.refusesCredential : Self.refusesQueryCredential)
        // A persisted query's document goes when the server asked for it: that answer is the
        // network's, not the cache's.
        if persisted, sendsDocument { options.cachePolicy = .networkOnly }
        let request: HTTPRequest
        if Operation.kind == .query, graphQL.queriesAsGET {
            var query: [URLQueryItem] = []
            if sendsDocument { query.append(URLQueryItem(name: "query", value: sent.text)) }
            if !document.name.isEmpty { query.append(URLQueryItem(name: "operationName", value: document.name)) }
            if let variables { query.append(URLQueryItem(name: "variables", value: String(decoding: variables, as: UTF8.self))) }
            if let extensions { query.append(URLQueryItem(name: "extensions", value: try Self.json(extensions))) }
            request = try requests.request(for: Endpoint<Data>(
                path: graphQL.path, query: query, headers: headers, version: graphQL.version, options: options).untyped)
            // Filed under the operation, like a POSTed query's: so results with errors can be
            // forgotten and `invalidate` finds them (a hash-only and a full GET share an entry).
            settings.readKey = Self.readKeyPrefix(endpoint: try post.get().url, operationName: document.name)
                + "/\(hash)/" + (variables.map { String(decoding: $0, as: UTF8.self) } ?? "")
        } else {
            var post = try self.post.get()
            var body = Data()
            body.reserveCapacity(sent.json.utf8.count + document.nameJSON.utf8.count + (variables?.count ?? 0) + 64)
            body.append(UInt8(ascii: "{"))
            if sendsDocument { body.append(contentsOf: "\"query\":\(sent.json),".utf8) }
            if !document.name.isEmpty { body.append(contentsOf: "\"operationName\":\(document.nameJSON),".utf8) }
            if let variables { body.append(contentsOf: "\"variables\":".utf8); body.append(variables); body.append(UInt8(ascii: ",")) }
            if let extensions { body.append(contentsOf: "\"extensions\":\(try Self.json(extensions)),".utf8) }
            if body.count > 1 { body.removeLast() }   // the last member's comma
            body.append(UInt8(ascii: "}"))
            if !headers.contains("Content-Type") { headers["Content-Type"] = "application/json" }
            post.request.headers = headers
            post.request.body = body
            request = post.request
            if Operation.kind == .query {
                settings.readKey = Self.readKeyPrefix(endpoint: post.url, operationName: document.name)
                    + "/\(hash)/" + (variables.map { String(decoding: $0, as: UTF8.self) } ?? "")
            }
        }
        return (request, options, settings)
    }

    /// What a query's cache key starts with: the endpoint and the operation's name (an
    /// invalidation under it reaches `…#Hero/…`, not `…#HeroDetails/…`: ``CacheKey/isAt(_:)``).
    static func readKeyPrefix(endpoint: String, operationName: String) -> String {
        "\(endpoint)#\(operationName.isEmpty ? "anonymous" : operationName)"
    }

    private static func json(_ value: some Encodable) throws(NetworkError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            throw .encodingError(underlying: error)
        }
    }

    // MARK: Results

    static func data<Value>(of result: GraphQLResult<Value>) throws(NetworkError) -> Value {
        guard result.errors.isEmpty else { throw .graphQL(GraphQLFailure(errors: result.errors, data: result.data, response: result.response)) }
        guard let data = result.data else {
            throw .decodingError(
                underlying: DecodingError.valueNotFound(Value.self, .init(codingPath: [], debugDescription: "the response has no data and no errors")),
                bodyPrefix: String(decoding: result.response.body.prefix(256), as: UTF8.self))
        }
        return data
    }

    /// Whether a GraphQL response refuses the request for its credential: an `UNAUTHENTICATED`
    /// error and no data. With data, the server ran the operation (a mutation's effect is done),
    /// so it must not be replayed. Looks for the word before parsing anything: most responses
    /// do not have it.
    @Sendable static func refusesCredential(_ response: HTTPResponse) -> Bool {
        guard response.body.range(of: Data("UNAUTHENTICATED".utf8)) != nil else { return false }
        return GraphQLEnvelope.refusesCredential(response.body, evenWithData: false)
    }

    /// ``refusesCredential(_:)`` for a query (or a subscription): also beside partial data,
    /// since reading again with a renewed credential repeats no effect and completes the data.
    @Sendable static func refusesQueryCredential(_ response: HTTPResponse) -> Bool {
        guard response.body.range(of: Data("UNAUTHENTICATED".utf8)) != nil else { return false }
        return GraphQLEnvelope.refusesCredential(response.body, evenWithData: true)
    }

    /// Whether a response's body is an HTML page (a server's error page or IDE, not GraphQL).
    private static func isHTML(_ response: HTTPResponse) -> Bool {
        (response.headers["Content-Type"] ?? "").lowercased().hasPrefix("text/html")
    }

    /// The error of a `GET` query the server does not take: it says so, and what to change.
    private static func refusesGET(_ response: HTTPResponse, url: URL) -> NetworkError {
        let answer = isHTML(response) ? "an HTML page (\(response.status))" : "\(response.status)"
        var endpoint = URLComponents(url: url, resolvingAgainstBaseURL: false)
        endpoint?.query = nil
        return .invalidResponse(
            "the GraphQL server at \(endpoint?.string ?? "the endpoint") does not accept GET queries: it answered \(answer); "
                + "set GraphQLConfiguration.queriesAsGET to false to POST them")
    }

    /// Whether an answer to a persisted query says the server does not support them (Apollo's
    /// client's test): `PersistedQueryNotSupported`, or a 400 that refuses the hash-only form
    /// (a server that looks for a document and finds none) or names the extension.
    private static func refusesPersistedQueries(_ response: HTTPResponse, errors: [GraphQLError], hashOnly: Bool) -> Bool {
        if errors.contains(where: saysPersistedQueriesUnsupported) { return true }
        guard response.status == 400 else { return false }
        if hashOnly { return true }
        let text = String(decoding: response.body.prefix(4096), as: UTF8.self).lowercased()
        return text.contains("persisted") || text.contains("extensions")
    }

    private static func saysPersistedQueriesUnsupported(_ error: GraphQLError) -> Bool {
        error.code == "PERSISTED_QUERY_NOT_SUPPORTED" || error.message == "PersistedQueryNotSupported"
    }

    /// Whether the server asks for the document a persisted query left out.
    private static func asksForDocument(_ error: GraphQLError) -> Bool {
        error.code == "PERSISTED_QUERY_NOT_FOUND" || error.message == "PersistedQueryNotFound"
    }
}
