@testable import Courier

/// The offline queue's SQLite storage with a fault hook before each step: a step the hook
/// returns an error for fails as a failing disk does (an I/O error, which fails the queue), and
/// a hook may also be slow, or record where it runs.
struct FaultyOfflineStorage: OfflineStorage {
    /// A storage step, in the order the queue takes them.
    enum Step: Sendable, Equatable {
        case open, insert, update, write
    }

    let fault: @Sendable (Step) -> (any Error)?

    init(fault: @escaping @Sendable (Step) -> (any Error)?) {
        self.fault = fault
    }

    func open(path: String) throws -> OfflineStore.Opened {
        try check(.open)
        let opened = try SQLiteOfflineStorage().open(path: path)
        return OfflineStore.Opened(
            store: Store(wrapped: opened.store, check: check), items: opened.items, lastID: opened.lastID,
            recovery: opened.recovery)
    }

    private func check(_ step: Step) throws {
        // SQLITE_IOERR: the store can no longer be trusted.
        if let error = fault(step) { throw SQLiteDatabase.Failure(code: 10, message: "injected: \(error)") }
    }

    private final class Store: OfflineItemStore {
        let wrapped: any OfflineItemStore
        let check: (Step) throws -> Void

        init(wrapped: any OfflineItemStore, check: @escaping (Step) throws -> Void) {
            self.wrapped = wrapped
            self.check = check
        }

        func insert(_ items: [OfflineItem]) throws {
            try check(.insert)
            try wrapped.insert(items)
        }

        func update(_ items: [OfflineItem]) throws {
            try check(.update)
            try wrapped.update(items)
        }

        func write(updating: [OfflineItem], deleting: [Int64]) throws {
            try check(.write)
            try wrapped.write(updating: updating, deleting: deleting)
        }
    }
}
