/// A mutual-exclusion lock over a `pthread_mutex_t` that lives in its own heap storage.
///
/// Courier's runtime primitives (reply handles, latches, event fan-out, counters) need a
/// lock. `Synchronization.Mutex` makes ThreadSanitizer report races that are not there on
/// Linux, and an inline `pthread_mutex_t` addressed as `&self.field` is reported as an
/// access race, so the mutex lives in a storage object whose address never changes (the same
/// shape as SwiftNIO's `NIOLock`). Copies of a `Lock` share one mutex.
package struct Lock: @unchecked Sendable {
    // Invariant: `storage` holds no value, only the mutex, which pthread makes thread-safe.
    private let storage = LockStorage.make(())

    package init() {}

    /// Runs `body` while holding the lock. `body` must not suspend or re-enter the lock.
    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        storage.lock()
        defer { storage.unlock() }
        return try body()
    }

    /// Runs `body` while holding the lock if it is free now; nil, without waiting, if not (for
    /// a task, which must not block its thread on one the I/O thread holds).
    package func withLockIfAvailable<T>(_ body: () throws -> T) rethrows -> T? {
        guard storage.tryLock() else { return nil }
        defer { storage.unlock() }
        return try body()
    }
}
