import Foundation

/// The client's normalized records and who watches them: one ``GraphQLRecordStore`` (a pure
/// value) under one lock, shared by every copy of ``ClientGraphQL``.
///
/// A lock, not an actor: reads are synchronous (``ClientGraphQL/read(_:)``, a watcher's re-read,
/// `cacheFirst`'s hit) and only copy the records out (a copy-on-write dictionary: no work under
/// the lock), then walk them outside it; a write merges under the lock and resumes the watchers
/// it concerns after it. No read waits for a message or a hop to another executor.
///
/// A watcher's read and the record fields it then depends on are recorded together: the read
/// is done outside the lock, and its dependencies are kept only if no write came in between
/// (a version counter says), else the read is done again. So no write is missed between a read and
/// the watch that follows it.
///
/// The records are the signed-in identity's: when the identity differs from the one the records
/// were last used under (sign-out, another user), they are dropped before anything is read or
/// written, and every watcher re-reads (and misses), so no user sees another's data.
///
/// With a file (``GraphQLNormalizedCacheConfiguration/file``), every change is also queued for
/// ``GraphQLRecordPersistence``, which writes the queue in batches on its own thread; the
/// records are then the identity's on disk too. A read that misses a record not yet looked
/// for in the file asks the file for it (asynchronously: the synchronous reads see memory only)
/// and reads again. With a size limit, every write is followed by a collection
/// (``GraphQLRecordStore/collect(limit:)``), on disk too.
final class GraphQLNormalizedCache: Sendable {
    let configuration: GraphQLNormalizedCacheConfiguration
    /// The signed-in identity now (`.some(nil)` when signed out, or without a session), or nil
    /// while the session has not loaded its persisted tokens yet: then the records are not
    /// dropped, nor read from their file (they may be another identity's).
    private let identity: @Sendable () -> String??
    /// Has the session load its persisted tokens (so that ``identity`` is known).
    private let loadIdentity: @Sendable () async -> Void
    private let state = Locked(State())
    /// The possible types loaded from the server (``ClientGraphQL/loadPossibleTypes(headers:options:)``),
    /// over the configuration's.
    private let loadedPossibleTypes = Locked<[String: Set<String>]>([:])
    /// Layers of mutations queued offline, until their items end.
    let queuedLayers = Locked(GraphQLQueuedLayers())
    /// The file the records are kept in, if any.
    private let persistence: GraphQLRecordPersistence?
    /// What happens to the file.
    let events = EventBroadcaster<GraphQLRecordsEvent>()

    private struct State: Sendable {
        var store = GraphQLRecordStore()
        /// Each watcher's wake-up signal: one pending signal is enough (the watcher re-reads).
        var signals: [GraphQLRecordStore.WatcherID: AsyncStream<Void>.Continuation] = [:]
        var nextID = 0
        /// Counts changes, so a read outside the lock knows whether a write came in meanwhile.
        var version = 0
        /// The identity the records belong to, once known.
        var identity: String?
        var identityKnown = false
        /// The changes the file has yet to take, in order, and whether a flush is asked for.
        var pending: [GraphQLRecordChange] = []
        var flushAsked = false
        /// The records looked for in the file already (found or not): a miss of one of them is
        /// final.
        var checked: Set<String> = []
        /// Counts the changes that remove records (evictions, clears, identity changes), so a
        /// load from the file that one overtook is not merged (it could bring a removed record
        /// back).
        var removals = 0
    }

    /// What an operation's records are walked with: its selections under its variables, from its
    /// root record.
    struct Access: Sendable {
        let collector: GraphQLSelectionCollector
        let selections: [GraphQLExecutableDocument.Selection]
        let rootKey: String
        let rootType: String
    }

    init(
        configuration: GraphQLNormalizedCacheConfiguration, identity: @escaping @Sendable () -> String?? = { .some(nil) },
        loadIdentity: @escaping @Sendable () async -> Void = {}
    ) {
        self.configuration = configuration
        self.identity = identity
        self.loadIdentity = loadIdentity
        let events = events
        persistence = configuration.file.map { GraphQLRecordPersistence(path: $0, events: events) }
    }

    /// Runs `body` on the state under the lock, after dropping the records of an identity that
    /// is no longer the signed-in one (and waking every watcher).
    private func locked<T>(_ body: (inout State) -> T) -> T {
        let identity = identity()
        let persistent = persistence != nil
        let (value, woken, flush) = state.withLock { state -> (T, [AsyncStream<Void>.Continuation], Bool) in
            var woken: [AsyncStream<Void>.Continuation] = []
            if let identity, !state.identityKnown || state.identity != identity {
                if state.identityKnown {
                    woken = state.store.clear().compactMap { state.signals[$0] }
                    state.version += 1
                    state.checked = []
                    state.removals += 1
                }
                state.identity = identity
                state.identityKnown = true
                if persistent { state.pending.append(.adopt(identity)) }
            }
            let value = body(&state)
            let flush = !state.pending.isEmpty && !state.flushAsked
            if flush { state.flushAsked = true }
            return (value, woken, flush)
        }
        for signal in woken { signal.yield() }
        if flush, let persistence { Task { await persistence.flush(from: self) } }
        return value
    }

    /// The changes queued for the file, taken by its flush.
    func takePending() -> [GraphQLRecordChange] {
        state.withLock { state in
            state.flushAsked = false
            defer { state.pending = [] }
            return state.pending
        }
    }

    /// Waits until every change made so far is in the file (at once without one).
    func flush() async {
        await persistence?.flush(from: self)
    }

    /// How `operation` (with its variables) reads and writes records.
    func access<Operation: GraphQLOperation>(_ operation: Operation) throws(NetworkError) -> Access {
        let document = try GraphQLDocument.of(Operation.self)
        var variables: [String: JSONValue] = [:]
        if let json = try GraphQLRequestBody.variablesJSON(operation.variables) {
            do {
                variables = try JSONDecoder().decode([String: JSONValue].self, from: json)
            } catch {
                throw .encodingError(underlying: error)
            }
        }
        // A variable left out takes its default, as the server does: the same field, the same key.
        let literals = GraphQLSelectionCollector(fragments: [:], variables: [:], possibleTypes: [:])
        for definition in document.operation.variables where variables[definition.name] == nil {
            if let value = definition.defaultValue { variables[definition.name] = literals.resolve(value) }
        }
        return Access(
            collector: GraphQLSelectionCollector(
                fragments: document.parsed.fragments, variables: variables, possibleTypes: possibleTypes),
            selections: document.operation.selections, rootKey: GraphQLRecord.rootKey(of: Operation.kind),
            rootType: GraphQLRecord.rootType(of: Operation.kind))
    }

    /// How `Fragment` reads and writes the record `key`.
    func access<Fragment: GraphQLFragment>(_ type: Fragment.Type, record key: String) throws(NetworkError) -> Access {
        let parsed: GraphQLExecutableDocument
        do {
            parsed = try GraphQLDocumentParser.parse(Fragment.document, requiringOperation: false)
        } catch {
            throw .invalidRequest("the document of \(Fragment.self) does not parse: \(error)")
        }
        guard let fragment = parsed.fragments[Fragment.fragmentName] else {
            throw .invalidRequest("the document of \(Fragment.self) has no fragment named \"\(Fragment.fragmentName)\": give fragmentName")
        }
        return Access(
            collector: GraphQLSelectionCollector(fragments: parsed.fragments, variables: [:], possibleTypes: possibleTypes),
            selections: fragment.selections, rootKey: key, rootType: fragment.typeCondition)
    }

    /// Which concrete types each interface or union has: the configuration's, with those loaded
    /// from the server added.
    var possibleTypes: [String: Set<String>] {
        let loaded = loadedPossibleTypes.withLock { $0 }
        return loaded.isEmpty ? configuration.possibleTypes : configuration.possibleTypes.merging(loaded) { $0.union($1) }
    }

    /// Adds `types` (loaded from the server) to the possible types every later access uses.
    func load(possibleTypes types: [String: Set<String>]) {
        loadedPossibleTypes.withLock { $0.merge(types) { $0.union($1) } }
    }

    // MARK: Writes

    /// Merges an operation's `data` into the records and wakes the watchers whose fields
    /// changed; returns them.
    @discardableResult
    func write(_ data: [String: JSONValue], _ access: Access) -> Set<GraphQLRecordStore.WatcherID> {
        write(records: normalize(data, access))
    }

    /// The records `data` holds as `access`'s operation's answer, not yet merged.
    func normalize(_ data: [String: JSONValue], _ access: Access) -> [String: GraphQLRecord] {
        let configuration = configuration
        let normalizer = GraphQLNormalizer(collector: access.collector) { configuration.recordKey(typename: $0, object: $1) }
        return normalizer.normalize(data, selections: access.selections, rootKey: access.rootKey, rootType: access.rootType)
    }

    /// Merges `records` (a transaction's writes) and wakes the watchers whose fields changed.
    @discardableResult
    func write(records: [String: GraphQLRecord]) -> Set<GraphQLRecordStore.WatcherID> {
        change(.merge(records)) { $0.write(records) }
    }

    /// The records as reads see them, to read from outside the lock.
    var snapshot: [String: GraphQLRecord] { locked { $0.store.records } }

    /// Adds an optimistic layer of `records` over the server's, which watchers see at once;
    /// returns its id, to remove it with ``removeLayer(_:)``.
    func addLayer(_ records: [String: GraphQLRecord]) -> Int {
        let (id, woken) = locked { state -> (Int, [AsyncStream<Void>.Continuation]) in
            state.nextID += 1
            let id = state.nextID
            let ids = state.store.addLayer(id, records)
            state.version += 1
            return (id, ids.compactMap { state.signals[$0] })
        }
        for signal in woken { signal.yield() }
        return id
    }

    /// Removes optimistic layer `id`: the watchers of what it covered see the server's records.
    func removeLayer(_ id: Int) {
        change(nil) { $0.removeLayer(id) }
    }

    /// Merges the `data` of a response's body (`{"data": …}`, or a multipart subscription part's
    /// `{"payload": {"data": …}}`); a body without data changes nothing.
    func write(responseBody body: Data, _ access: Access) {
        guard let data = Self.data(in: body) else { return }
        write(data, access)
    }

    /// Removes a record, or one field of it; its watchers re-read (and miss).
    func evict(record: String, field: String?) {
        change(.evict(record, field: field)) { $0.evict(record: record, field: field) }
    }

    /// Removes every record; every watcher re-reads.
    func clear() {
        change(.clear) { $0.clear() }
    }

    @discardableResult
    private func change(
        _ persisted: GraphQLRecordChange?, _ body: (inout GraphQLRecordStore) -> Set<GraphQLRecordStore.WatcherID>
    ) -> Set<GraphQLRecordStore.WatcherID> {
        let persistent = persistence != nil
        let limit = configuration.maxRecords
        let (ids, woken) = locked { state -> (Set<GraphQLRecordStore.WatcherID>, [AsyncStream<Void>.Continuation]) in
            var ids = body(&state.store)
            if persistent, let persisted { state.pending.append(persisted) }
            switch persisted {
            case .merge?: break
            case nil: break
            default: state.removals += 1
            }
            if let limit {
                let collected = state.store.collect(limit: limit)
                ids.formUnion(collected.watchers)
                if !collected.evicted.isEmpty {
                    state.removals += 1
                    if persistent { state.pending += collected.evicted.map { .evict($0, field: nil) } }
                }
            }
            if case .clear? = persisted { state.checked = [] }
            state.version += 1
            return (ids, ids.compactMap { state.signals[$0] })
        }
        for signal in woken { signal.yield() }
        return ids
    }

    // MARK: Reads

    /// The operation answered from the records, or the miss that names the field they lack.
    func read(_ access: Access) -> Result<GraphQLRecordReader.Answer, GraphQLRecordReader.Miss> {
        let outcome = Self.read(access, from: locked { $0.store.records })
        if configuration.maxRecords != nil, case .success(let answer) = outcome {
            state.withLock { $0.store.touch(Set(answer.dependencies.map(\.record))) }
        }
        return outcome
    }

    /// As ``read(_:)``, asking the file for the records memory misses (see the type's notes).
    func readLoading(_ access: Access) async -> Result<GraphQLRecordReader.Answer, GraphQLRecordReader.Miss> {
        var outcome = read(access)
        while case .failure(let miss) = outcome, await load(miss.record) { outcome = read(access) }
        return outcome
    }

    /// As ``readAndWatch(_:_:)``, asking the file for the records memory misses.
    func readAndWatchLoading(_ id: GraphQLRecordStore.WatcherID, _ access: Access) async -> Result<GraphQLRecordReader.Answer, GraphQLRecordReader.Miss> {
        var outcome = readAndWatch(id, access)
        while case .failure(let miss) = outcome, await load(miss.record) { outcome = readAndWatch(id, access) }
        return outcome
    }

    /// Loads the record `key` (and what it references) from the file into memory, unless it
    /// was looked for already; returns whether reading again may now find more.
    private func load(_ key: String) async -> Bool {
        guard let persistence else { return false }
        if identity() == nil { await loadIdentity() }
        let (known, removals, identityKnown) = locked { ($0.checked.contains(key), $0.removals, $0.identityKnown) }
        // Whose the file's records are is not known yet: none is read.
        guard identityKnown, !known, let loaded = await persistence.load(key, from: self) else { return false }
        let woken = locked { state -> [AsyncStream<Void>.Continuation] in
            // A removal overtook the load: what it read may be gone; the caller reads again and,
            // missing, loads again.
            guard state.removals == removals else { return [] }
            state.checked.insert(key)
            state.checked.formUnion(loaded.keys)
            state.version += 1
            return state.store.load(loaded).compactMap { state.signals[$0] }
        }
        for signal in woken { signal.yield() }
        return true
    }

    static func read(_ access: Access, from records: [String: GraphQLRecord]) -> Result<GraphQLRecordReader.Answer, GraphQLRecordReader.Miss> {
        do throws(GraphQLRecordReader.Miss) {
            return .success(try GraphQLRecordReader(collector: access.collector).read(
                access.selections, rootKey: access.rootKey, rootType: access.rootType, from: records))
        } catch {
            return .failure(error)
        }
    }

    // MARK: Watchers

    /// A new watcher: its id, and the signal that wakes it when a field it read changes.
    func register() -> (GraphQLRecordStore.WatcherID, AsyncStream<Void>) {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            state.nextID += 1
            state.signals[state.nextID] = continuation
            return state.nextID
        }
        return (id, stream)
    }

    /// Forgets watcher `id` and ends its signal.
    func unregister(_ id: GraphQLRecordStore.WatcherID) {
        let signal = state.withLock { state in
            state.store.unwatch(id)
            return state.signals.removeValue(forKey: id)
        }
        signal?.finish()
    }

    /// Reads for watcher `id` and makes what it read (up to a miss) its dependencies.
    func readAndWatch(_ id: GraphQLRecordStore.WatcherID, _ access: Access) -> Result<GraphQLRecordReader.Answer, GraphQLRecordReader.Miss> {
        while true {
            let (records, version) = locked { ($0.store.records, $0.version) }
            let outcome = Self.read(access, from: records)
            let dependencies = switch outcome {
            case .success(let answer): answer.dependencies
            case .failure(let miss): miss.dependencies
            }
            let touches = configuration.maxRecords != nil
            let kept = state.withLock { state -> Bool in
                guard state.version == version else { return false }
                if state.signals[id] != nil { state.store.watch(id, reading: dependencies) }
                if touches { state.store.touch(Set(dependencies.map(\.record))) }
                return true
            }
            if kept { return outcome }
        }
    }

    // MARK: JSON

    private struct Body: Decodable {
        let data: [String: JSONValue]?
        let payload: Payload?

        struct Payload: Decodable {
            let data: [String: JSONValue]?
        }
    }

    /// The `data` object of a response's body.
    static func data(in body: Data) -> [String: JSONValue]? {
        guard let decoded = try? JSONDecoder().decode(Body.self, from: body) else { return nil }
        return decoded.data ?? decoded.payload?.data
    }

    /// `json` (an answer from the records) decoded as an operation's `Data`.
    /// Decoded from the tree itself (``JSONValueDecoder``): writing it out as JSON to parse it
    /// back would cost more than the read.
    static func decode<Value: Decodable>(_ type: Value.Type, from json: JSONValue) throws(NetworkError) -> Value {
        do {
            return try Value(from: JSONValueDecoder(json))
        } catch {
            let bytes = (try? JSONEncoder().encode(json)) ?? Data()
            throw .decodingError(underlying: error, bodyPrefix: String(decoding: bytes.prefix(256), as: UTF8.self))
        }
    }
}
