import Foundation

/// Keeps the normalized records in a SQLite file (``GraphQLNormalizedCacheConfiguration/file``),
/// on a thread of its own (``ThreadExecutor``): the file is opened, written and read there only,
/// so that no SQLite call, `fsync` or wait for a lock blocks the cooperative pool.
///
/// Writes are batched: the records in memory queue their changes (``GraphQLRecordChange``) and
/// ask for one flush; the flush takes every change queued by then and writes them in one
/// transaction. Reads are lazy: the file is not loaded at start; a record is read from it the
/// first time the records in memory miss it, with the records it references (not those of a
/// root record: a root references everything).
///
/// A corrupt file is moved aside and a fresh one created (``GraphQLRecordsEvent/storageReset(movedTo:)``);
/// a failing one is published (``GraphQLRecordsEvent/storageFailed(_:)``) and, if it can no
/// longer be trusted, closed and opened again at its next use. The records in memory go on
/// either way.
actor GraphQLRecordPersistence {
    private let executor = ThreadExecutor(name: "courier.records")
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private let path: String
    private let events: EventBroadcaster<GraphQLRecordsEvent>
    private var file: GraphQLRecordFile?

    /// The most records one miss loads (a record and what it references).
    static let loadLimit = 10_000

    init(path: String, events: EventBroadcaster<GraphQLRecordsEvent>) {
        self.path = path
        self.events = events
    }

    isolated deinit {}

    /// Writes every change `cache` has queued, in one transaction.
    func flush(from cache: GraphQLNormalizedCache) {
        let changes = cache.takePending()
        guard !changes.isEmpty, let file = open() else { return }
        do {
            try file.apply(changes)
        } catch {
            fail(error)
        }
    }

    /// The record `key` as the file holds it, with the records it references (all of them, up
    /// to ``loadLimit``), after writing what `cache` has queued; nil when the file cannot be
    /// read.
    func load(_ key: String, from cache: GraphQLNormalizedCache) -> [String: GraphQLRecord]? {
        flush(from: cache)
        guard let file = open() else { return nil }
        do {
            var loaded: [String: GraphQLRecord] = [:]
            var visited: Set<String> = [key]
            var pending = [key]
            while let next = pending.popLast(), loaded.count < Self.loadLimit {
                guard let record = try file.record(next) else { continue }
                loaded[next] = record
                if GraphQLRecord.isRoot(next) { continue }
                for value in record.fields.values {
                    for reference in value.references where visited.insert(reference).inserted { pending.append(reference) }
                }
            }
            return loaded
        } catch {
            fail(error)
            return nil
        }
    }

    private func open() -> GraphQLRecordFile? {
        if let file { return file }
        do {
            let opened = try GraphQLRecordFile.open(path)
            if let movedAside = opened.movedAside { events.publish(.storageReset(movedTo: movedAside)) }
            file = opened
            return opened
        } catch {
            events.publish(.storageFailed("opening \(path): \(error)"))
            return nil
        }
    }

    private func fail(_ error: any Error) {
        events.publish(.storageFailed("\(path): \(error)"))
        if let failure = error as? SQLiteDatabase.Failure, failure.isUnusable { file = nil }
    }
}
