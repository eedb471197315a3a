/// The normalized records of one identity, their optimistic layers, and which watcher read
/// which record field: a pure value, so that whoever owns it (one actor) decides when to write
/// and whom to tell. Every change returns the watchers it concerns, found through an index of
/// record fields, so a write reaches only the watchers that read what it changed.
struct GraphQLRecordStore: Sendable {
    /// A watched operation, by the number its owner gave it.
    typealias WatcherID = Int

    /// The server's records (what responses and manual writes stored).
    private(set) var base: [String: GraphQLRecord] = [:]
    /// Optimistic layers over `base`, oldest first: what a mutation in flight expects.
    private var layers: [(id: Int, records: [String: GraphQLRecord])] = []
    /// The record fields each watcher read last time.
    private var dependencies: [WatcherID: Set<GraphQLRecord.FieldKey>] = [:]
    /// The watchers that read each record field.
    private var readers: [GraphQLRecord.FieldKey: Set<WatcherID>] = [:]

    /// The records as watchers and reads see them: `base` with every layer over it, in order.
    var records: [String: GraphQLRecord] {
        guard !layers.isEmpty else { return base }
        var view = base
        for layer in layers { _ = GraphQLRecord.merge(layer.records, into: &view) }
        return view
    }

    /// Merges `incoming` into the server's records; returns the watchers whose fields changed as
    /// they see them (a field an optimistic layer covers does not change for them).
    mutating func write(_ incoming: [String: GraphQLRecord]) -> Set<WatcherID> {
        let changed = GraphQLRecord.merge(incoming, into: &base)
        return watchers(of: changed.filter { key in !layers.contains { $0.records[key.record]?.fields[key.field] != nil } })
    }

    /// Adds an optimistic layer `id` over the records; returns the watchers it concerns.
    mutating func addLayer(_ id: Int, _ incoming: [String: GraphQLRecord]) -> Set<WatcherID> {
        let changed = Self.fields(of: incoming).filter { visibleValue($0) != incoming[$0.record]?.fields[$0.field] }
        layers.append((id, incoming))
        return watchers(of: changed)
    }

    /// Removes layer `id` (the server answered, or the mutation failed: a rollback); returns the
    /// watchers whose fields change back.
    mutating func removeLayer(_ id: Int) -> Set<WatcherID> {
        guard let index = layers.firstIndex(where: { $0.id == id }) else { return [] }
        let fields = Self.fields(of: layers[index].records)
        let before = Dictionary(uniqueKeysWithValues: fields.map { ($0, visibleValue($0)) })
        layers.remove(at: index)
        return watchers(of: fields.filter { before[$0]! != visibleValue($0) })
    }

    /// Removes a record, or one field of it, from the server's records; returns the watchers
    /// that read it (they now miss).
    mutating func evict(record key: String, field: String? = nil) -> Set<WatcherID> {
        guard let record = base[key] else { return [] }
        if let field {
            guard base[key]?.fields.removeValue(forKey: field) != nil else { return [] }
            return watchers(of: [GraphQLRecord.FieldKey(record: key, field: field)])
        }
        base[key] = nil
        return watchers(of: Set(record.fields.keys.map { GraphQLRecord.FieldKey(record: key, field: $0) }))
    }

    /// Removes every record and layer; returns every watcher.
    mutating func clear() -> Set<WatcherID> {
        base = [:]
        layers = []
        return Set(dependencies.keys)
    }

    /// Records what watcher `id` read (replacing what it read before).
    mutating func watch(_ id: WatcherID, reading fields: Set<GraphQLRecord.FieldKey>) {
        unwatch(id)
        dependencies[id] = fields
        for field in fields { readers[field, default: []].insert(id) }
    }

    /// Forgets watcher `id`.
    mutating func unwatch(_ id: WatcherID) {
        guard let fields = dependencies.removeValue(forKey: id) else { return }
        for field in fields {
            readers[field]?.remove(id)
            if readers[field]?.isEmpty == true { readers[field] = nil }
        }
    }

    private func watchers(of fields: Set<GraphQLRecord.FieldKey>) -> Set<WatcherID> {
        var found: Set<WatcherID> = []
        for field in fields { if let ids = readers[field] { found.formUnion(ids) } }
        return found
    }

    private static func fields(of records: [String: GraphQLRecord]) -> Set<GraphQLRecord.FieldKey> {
        Set(records.flatMap { key, record in record.fields.keys.map { GraphQLRecord.FieldKey(record: key, field: $0) } })
    }

    /// A field's value as reads see it: the newest layer that holds it, else the server's.
    private func visibleValue(_ key: GraphQLRecord.FieldKey) -> GraphQLRecord.Value? {
        for layer in layers.reversed() {
            if let value = layer.records[key.record]?.fields[key.field] { return value }
        }
        return base[key.record]?.fields[key.field]
    }
}
