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
    /// When each record of `base` was last written or read, on `useClock`: what the size limit
    /// evicts by, least recent first.
    private var lastUse: [String: UInt64] = [:]
    private var useClock: UInt64 = 0

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
        touch(incoming.keys)
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
        lastUse[key] = nil
        return watchers(of: Set(record.fields.keys.map { GraphQLRecord.FieldKey(record: key, field: $0) }))
    }

    /// Merges records read back from disk under the server's records: a field the records
    /// already hold keeps its value (it is newer than the file's). Returns the watchers of the
    /// fields that were missing and now arrived.
    mutating func load(_ loaded: [String: GraphQLRecord]) -> Set<WatcherID> {
        var arrived: Set<GraphQLRecord.FieldKey> = []
        for (key, record) in loaded {
            var fields = base[key]?.fields ?? [:]
            for (name, value) in record.fields where fields[name] == nil {
                fields[name] = value
                arrived.insert(GraphQLRecord.FieldKey(record: key, field: name))
            }
            base[key] = GraphQLRecord(fields: fields)
        }
        touch(loaded.keys)
        return watchers(of: arrived)
    }

    /// Notes that the records `keys` were just used (read), for the size limit.
    mutating func touch<Keys: Sequence<String>>(_ keys: Keys) {
        useClock += 1
        for key in keys where base[key] != nil { lastUse[key] = useClock }
    }

    /// Brings the server's records down to `limit`: first the records that no root record (a
    /// query's, a mutation's or a subscription's fields) and no watcher reaches, least recently
    /// used first, then, if that is not enough, the least recently used of the others (never a
    /// root record, nor one a watcher read). Returns the evicted keys and the watchers that read
    /// them.
    mutating func collect(limit: Int) -> (evicted: [String], watchers: Set<WatcherID>) {
        guard base.count > limit else { return ([], []) }
        let roots = GraphQLRecord.rootKeys
        let watched = Set(dependencies.values.flatMap { $0.map(\.record) })
        var reachable: Set<String> = []
        var pending = roots.filter { base[$0] != nil } + watched.filter { base[$0] != nil }
        while let key = pending.popLast() {
            guard reachable.insert(key).inserted, let record = base[key] else { continue }
            for value in record.fields.values { pending += value.references }
        }
        let uses = lastUse
        let byUse = { (keys: [String]) in keys.sorted { (uses[$0] ?? 0, $0) < (uses[$1] ?? 0, $1) } }
        let unreachable = byUse(base.keys.filter { !reachable.contains($0) })
        let others = byUse(reachable.filter { !roots.contains($0) && !watched.contains($0) })
        var evicted: [String] = []
        var fields: Set<GraphQLRecord.FieldKey> = []
        for key in unreachable + others {
            guard base.count > limit else { break }
            guard let record = base.removeValue(forKey: key) else { continue }
            lastUse[key] = nil
            evicted.append(key)
            for name in record.fields.keys { fields.insert(GraphQLRecord.FieldKey(record: key, field: name)) }
        }
        return (evicted, watchers(of: fields))
    }

    /// Removes every record and layer; returns every watcher.
    mutating func clear() -> Set<WatcherID> {
        base = [:]
        layers = []
        lastUse = [:]
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
