import Foundation

@testable import Courier

/// The cache's SQLite persistent tier with a fault hook before each step: a step the hook
/// returns an error for fails as a failing disk does (an I/O error, which fails the cache), and
/// a hook may also be slow, or record where it runs.
struct FaultyCacheStorage: PersistentCacheStorage {
    /// A storage step: opening the tier, reading an entry, or changing what is stored.
    enum Step: Sendable, Equatable {
        case open, read, write
    }

    let fault: @Sendable (Step) -> (any Error)?

    init(fault: @escaping @Sendable (Step) -> (any Error)?) {
        self.fault = fault
    }

    func open(path: String, maxBytes: Int) throws -> (store: any PersistentCacheStore, movedAside: String?) {
        try check(.open)
        let opened = try SQLiteCacheStorage().open(path: path, maxBytes: maxBytes)
        return (Store(wrapped: opened.store, check: check), opened.movedAside)
    }

    private func check(_ step: Step) throws {
        // SQLITE_IOERR: the tier can no longer be trusted.
        if let error = fault(step) { throw SQLiteDatabase.Failure(code: 10, message: "injected: \(error)") }
    }

    private final class Store: PersistentCacheStore {
        let wrapped: any PersistentCacheStore
        let check: (Step) throws -> Void

        init(wrapped: any PersistentCacheStore, check: @escaping (Step) throws -> Void) {
            self.wrapped = wrapped
            self.check = check
        }

        func entry(for key: CacheKey, now: Date) throws -> CacheEntry? {
            try check(.read)
            return try wrapped.entry(for: key, now: now)
        }

        func store(_ entry: CacheEntry, for key: CacheKey, now: Date) throws {
            try check(.write)
            try wrapped.store(entry, for: key, now: now)
        }

        func remove(_ key: CacheKey) throws {
            try check(.write)
            try wrapped.remove(key)
        }

        func remove(url: String, below: Bool) throws {
            try check(.write)
            try wrapped.remove(url: url, below: below)
        }

        func remove(identity: String) throws {
            try check(.write)
            try wrapped.remove(identity: identity)
        }

        func removeCookiePartitions() throws {
            try check(.write)
            try wrapped.removeCookiePartitions()
        }

        func removePrivate() throws {
            try check(.write)
            try wrapped.removePrivate()
        }

        func removeAll() throws {
            try check(.write)
            try wrapped.removeAll()
        }
    }
}
