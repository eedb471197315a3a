import Foundation

/// The normalized cache (``GraphQLConfiguration/normalizedCache``): queries answered from
/// records under Apollo's cache policies, watched queries, and manual access to the records.
extension ClientGraphQL {
    /// Runs `query` under `cachePolicy` and returns its results as they come: one, or, with
    /// ``GraphQLCachePolicy/cacheAndNetwork`` and a hit, the records' and then the network's
    /// (as Apollo's `fetch` calls its handler twice).
    ///
    /// ```swift
    /// for try await result in client.graphQL.fetch(HeroQuery(variables: .init(id: "1")), cachePolicy: .cacheAndNetwork) {
    ///     show(result.data.hero, from: result.source)
    /// }
    /// ```
    ///
    /// Without a normalized cache, the records always miss (``GraphQLCachePolicy/cacheOnly``
    /// throws ``NetworkError/notCached``). The network's requests pass the whole chain as
    /// ``fetch(_:headers:options:)``'s do; those of ``GraphQLCachePolicy/networkOnly``,
    /// ``GraphQLCachePolicy/cacheAndNetwork`` and ``GraphQLCachePolicy/noCache`` skip the
    /// document-level cache too.
    public func fetch<Query: GraphQLQuery>(
        _ query: Query, cachePolicy: GraphQLCachePolicy, headers: HTTPHeaders = [:], options: RequestOptions = RequestOptions()
    ) -> GraphQLCachedResults<Query> {
        GraphQLCachedResults(graphQL: self, query: query, cachePolicy: cachePolicy, headers: headers, options: options)
    }

    /// Watches `query`: its first result comes as `cachePolicy` says (a hit of the records, else
    /// the network's), then a new one whenever a record field it read changes, whoever changed
    /// it (another query, a mutation, a subscription's event, a manual write). It never emits
    /// an equal result twice, and ends when its task is cancelled or its iterator is dropped.
    ///
    /// ```swift
    /// for try await result in client.graphQL.watch(HeroQuery(variables: .init(id: "1"))) { show(result.data.hero) }
    /// ```
    ///
    /// Needs ``GraphQLConfiguration/normalizedCache``; without it, the first `next()` throws
    /// ``NetworkError/invalidRequest(_:)``.
    public func watch<Query: GraphQLQuery>(
        _ query: Query, cachePolicy: GraphQLCachePolicy = .cacheFirst, headers: HTTPHeaders = [:], options: RequestOptions = RequestOptions()
    ) -> GraphQLQueryWatch<Query> {
        GraphQLQueryWatch(graphQL: self, query: query, cachePolicy: cachePolicy, headers: headers, options: options)
    }

    /// Loads which concrete types each interface and union of the server's schema has, by
    /// introspection, and adds them to ``GraphQLNormalizedCacheConfiguration/possibleTypes`` for
    /// every later normalization and read: a fragment `... on Character` then applies to a
    /// `Droid`. Call it once, before the first query that needs it (Apollo's codegen reads the
    /// same from the schema); records stored before were normalized without them. Returns what
    /// was loaded.
    /// - Throws: ``NetworkError/invalidRequest(_:)`` without a normalized cache; what
    ///   ``fetch(_:headers:options:)`` throws (a server with introspection off answers a
    ///   ``NetworkError/graphQL(_:)``).
    @discardableResult
    public func loadPossibleTypes(headers: HTTPHeaders = [:], options: RequestOptions = RequestOptions()) async throws(NetworkError) -> [String: Set<String>] {
        let records = try requireRecords()
        let outcome = try await outcome(for: GraphQLPossibleTypesQuery(), headers: headers, options: options, queuesWhenOffline: false, storesRecords: false)
        guard let result = outcome.result else { throw .invalidResponse("the introspection query got no result") }
        let types = GraphQLPossibleTypesQuery.possibleTypes(in: try Self.data(of: result))
        records.load(possibleTypes: types)
        return types
    }

    /// `query`'s data as the records hold it, without a request (Apollo's `readObject` of a query).
    /// With a file (``GraphQLNormalizedCacheConfiguration/file``), it sees the records in memory
    /// only (it never waits for the disk); ``fetch(_:cachePolicy:headers:options:)`` with
    /// ``GraphQLCachePolicy/cacheOnly`` reads the file too.
    /// - Throws: ``NetworkError/notCached`` when the records lack a field it selects.
    public func read<Query: GraphQLQuery>(_ query: Query) throws(NetworkError) -> Query.Data {
        let records = try requireRecords()
        switch records.read(try records.access(query)) {
        case .success(let answer): return try GraphQLNormalizedCache.decode(Query.Data.self, from: answer.data)
        case .failure: throw .notCached
        }
    }

    /// Writes `data`, in `query`'s shape (its response's `data` member, under its aliases), into
    /// the records, as if the server had answered it; watchers of what changed see it.
    public func write<Query: GraphQLQuery>(_ data: [String: JSONValue], for query: Query) throws(NetworkError) {
        let records = try requireRecords()
        records.write(data, try records.access(query))
    }

    /// The record `key` (`Hero:1`) in `fragment`'s shape (Apollo's `readObject`).
    /// - Throws: ``NetworkError/notCached`` when it lacks a field the fragment selects.
    public func read<Fragment: GraphQLFragment>(_ fragment: Fragment.Type, record key: String) throws(NetworkError) -> Fragment.Data {
        try withRecords { (records: inout GraphQLRecordTransaction) throws(NetworkError) in try records.read(fragment, record: key) }
    }

    /// Removes the record `key` (`Hero:1`), or only its `field` (a storage key: the name and
    /// its arguments, `hero(id:"1")`); the watchers that read it re-read, and miss.
    public func evict(record key: String, field: String? = nil) {
        records?.evict(record: key, field: field)
    }

    /// Removes every record (Apollo's `clearCache`).
    public func clearRecords() {
        records?.clear()
    }

    /// Returns once every change to the records made so far is in their file
    /// (``GraphQLNormalizedCacheConfiguration/file``): before the process exits, say. At once
    /// without a file.
    public func flushRecords() async {
        await records?.flush()
    }

    /// Every event of the records' file from now on (a corrupt file moved aside, a failure); a
    /// subscriber that falls behind keeps the newest `buffer` events. Finishes at once without
    /// a normalized cache.
    public func recordEvents(buffer: Int = ClientGroup.eventBuffer) -> AsyncStream<GraphQLRecordsEvent> {
        guard let records else { return ClientGroup.finished() }
        return records.events.subscribe(bufferingPolicy: .bufferingNewest(buffer))
    }

    /// Runs `query` from the network under `cachePolicy`'s rules and returns its data.
    func networkData<Query: GraphQLQuery>(
        _ query: Query, cachePolicy: GraphQLCachePolicy, headers: HTTPHeaders, options: RequestOptions
    ) async throws(NetworkError) -> Query.Data {
        var options = options
        if cachePolicy != .cacheFirst { options.cachePolicy = .networkOnly }
        let outcome = try await outcome(
            for: query, headers: headers, options: options, queuesWhenOffline: false, storesRecords: cachePolicy != .noCache)
        // Without `queuesWhenOffline` there is always a result.
        return try Self.data(of: outcome.result!)
    }

    /// `query`'s data from the records (reading their file where memory misses), or nil when
    /// they miss (or there are none).
    func cachedData<Query: GraphQLQuery>(_ query: Query) async throws(NetworkError) -> Query.Data? {
        guard let records else { return nil }
        guard case .success(let answer) = await records.readLoading(try records.access(query)) else { return nil }
        return try GraphQLNormalizedCache.decode(Query.Data.self, from: answer.data)
    }

    func requireRecords() throws(NetworkError) -> GraphQLNormalizedCache {
        guard let records else { throw .invalidRequest("the normalized cache is off: set GraphQLConfiguration.normalizedCache") }
        return records
    }
}

extension ClientGraphQL {
    /// Runs `body` with the records (Apollo's `withinReadWriteTransaction`): its writes land
    /// together when it returns, and reach the watchers of what they change; nothing lands when
    /// it throws.
    /// - Throws: ``NetworkError/invalidRequest(_:)`` without a normalized cache, or what `body`
    ///   throws.
    public func withRecords<T>(_ body: (inout GraphQLRecordTransaction) throws(NetworkError) -> T) throws(NetworkError) -> T {
        var transaction = GraphQLRecordTransaction(cache: try requireRecords())
        let value = try body(&transaction)
        if !transaction.writes.isEmpty { transaction.cache.write(records: transaction.writes) }
        return value
    }

    /// Runs `mutation` (as ``perform(_:headers:options:)``: its result is merged into the
    /// records), then `update` with its data and the records: for what the server cannot know,
    /// such as a created item to append to a cached list.
    public func perform<Mutation: GraphQLMutation>(
        _ mutation: Mutation, update: (Mutation.Data, inout GraphQLRecordTransaction) throws(NetworkError) -> Void,
        headers: HTTPHeaders = [:], options: RequestOptions = RequestOptions()
    ) async throws(NetworkError) -> Mutation.Data {
        let data = try await perform(mutation, headers: headers, options: options)
        try withRecords { (records: inout GraphQLRecordTransaction) throws(NetworkError) in try update(data, &records) }
        return data
    }

    /// Runs `mutation` with an optimistic layer: `optimisticResponse` (its `data` as the server is
    /// expected to answer it) is written over the records at once, so watchers show it before the
    /// server answers. The server's answer then replaces the layer; an error removes it, and the
    /// watchers see the records as they were (a rollback). Layers of mutations in flight stay in
    /// the order they were added.
    /// - Throws: ``NetworkError/invalidRequest(_:)`` without a normalized cache, or what
    ///   ``perform(_:headers:options:)`` throws.
    public func perform<Mutation: GraphQLMutation>(
        _ mutation: Mutation, optimisticResponse: [String: JSONValue], headers: HTTPHeaders = [:], options: RequestOptions = RequestOptions()
    ) async throws(NetworkError) -> Mutation.Data {
        let records = try requireRecords()
        let layer = records.addLayer(records.normalize(optimisticResponse, try records.access(mutation)))
        // The server's records are written under the layer first, so removing it shows them at once.
        defer { records.removeLayer(layer) }
        return try await perform(mutation, headers: headers, options: options)
    }
}
