/// Reads and writes of the normalized records that land together (Apollo's
/// `ReadWriteTransaction`): given by ``ClientGraphQL/withRecords(_:)`` and to a mutation's
/// `update` (``ClientGraphQL/perform(_:update:headers:options:)``). Reads see the records as they
/// were when it began, with its own writes; its writes reach the records, and the watchers of
/// what they change, when it ends without throwing.
///
/// ```swift
/// try client.graphQL.withRecords { records in
///     try records.update(TodosQuery()) { data in
///         if case .array(var items) = data["todos"] { items.append(created); data["todos"] = .array(items) }
///     }
/// }
/// ```
public struct GraphQLRecordTransaction {
    let cache: GraphQLNormalizedCache
    /// The records as this transaction sees them.
    private var records: [String: GraphQLRecord]
    /// What it wrote, merged when it ends.
    private(set) var writes: [String: GraphQLRecord] = [:]

    init(cache: GraphQLNormalizedCache) {
        self.cache = cache
        records = cache.snapshot
    }

    /// `query`'s data from the records.
    /// - Throws: ``NetworkError/notCached`` when they lack a field it selects.
    public func read<Query: GraphQLQuery>(_ query: Query) throws(NetworkError) -> Query.Data {
        try GraphQLNormalizedCache.decode(Query.Data.self, from: try json(of: query))
    }

    /// The record `key` (`Hero:1`) in `fragment`'s shape.
    /// - Throws: ``NetworkError/notCached`` when it lacks a field the fragment selects.
    public func read<Fragment: GraphQLFragment>(_ fragment: Fragment.Type, record key: String) throws(NetworkError) -> Fragment.Data {
        switch GraphQLNormalizedCache.read(try cache.access(fragment, record: key), from: records) {
        case .success(let answer): return try GraphQLNormalizedCache.decode(Fragment.Data.self, from: answer.data)
        case .failure: throw .notCached
        }
    }

    /// Writes `data`, in `fragment`'s shape, into the record `key` (`Hero:1`).
    public mutating func write<Fragment: GraphQLFragment>(
        _ data: [String: JSONValue], fragment: Fragment.Type, record key: String
    ) throws(NetworkError) {
        let incoming = cache.normalize(data, try cache.access(fragment, record: key))
        _ = GraphQLRecord.merge(incoming, into: &records)
        _ = GraphQLRecord.merge(incoming, into: &writes)
    }

    /// Writes `data`, in `query`'s shape (its response's `data` member, under its aliases).
    public mutating func write<Query: GraphQLQuery>(_ data: [String: JSONValue], for query: Query) throws(NetworkError) {
        let incoming = cache.normalize(data, try cache.access(query))
        _ = GraphQLRecord.merge(incoming, into: &records)
        _ = GraphQLRecord.merge(incoming, into: &writes)
    }

    /// Reads `query`'s data as JSON, lets `body` change it, and writes it back: how a cached
    /// list gets an item the server cannot know it holds.
    /// - Throws: ``NetworkError/notCached`` when the records lack a field it selects, or what
    ///   `body` throws.
    public mutating func update<Query: GraphQLQuery>(
        _ query: Query, _ body: (inout [String: JSONValue]) throws(NetworkError) -> Void
    ) throws(NetworkError) {
        guard case .object(var data) = try json(of: query) else { throw .notCached }
        try body(&data)
        try write(data, for: query)
    }

    private func json<Query: GraphQLQuery>(of query: Query) throws(NetworkError) -> JSONValue {
        switch GraphQLNormalizedCache.read(try cache.access(query), from: records) {
        case .success(let answer): answer.data
        case .failure: throw .notCached
        }
    }
}
