#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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
}

/// A value guarded by a lock: the only way to read or write it is `withLock`. Copies share the
/// value and its lock.
///
/// The value must take memory (not `Void` or an empty struct): TSan reports a race on
/// `inout` access to a zero-sized header even under the mutex. Use ``Lock`` for a bare lock.
package struct Locked<Value> {
    private let storage: LockStorage<Value>

    package init(_ value: Value) {
        precondition(MemoryLayout<Value>.size > 0, "Locked needs a value that takes memory; use Lock")
        storage = .make(value)
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try storage.withLock(body)
    }
}

// Invariant: the value is reachable only through `storage.withLock`, and only Sendable values
// are shared across threads.
extension Locked: @unchecked Sendable where Value: Sendable {}

/// A value and the mutex guarding it in one allocation: the value is a `ManagedBuffer`'s
/// header and the mutex its single element, reached only through a pointer, so its address
/// never changes.
/// (`ManagedBuffer` cannot be `Sendable`; `Lock` and `Locked` carry the promise.)
private final class LockStorage<Value>: ManagedBuffer<Value, pthread_mutex_t> {
    // Invariant: the mutex is initialised in `make`, destroyed only in `deinit`, and touched only
    // through pthread calls; the value is read and written only while the mutex is held.

    static func make(_ value: Value) -> LockStorage<Value> {
        let storage = unsafeDowncast(create(minimumCapacity: 1) { _ in value }, to: LockStorage<Value>.self)
        storage.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            let status = pthread_mutex_init(mutex, nil)
            precondition(status == 0, "pthread_mutex_init failed: \(status)")
        }
        return storage
    }

    deinit {
        withUnsafeMutablePointerToElements { mutex in
            pthread_mutex_destroy(mutex)
            _ = mutex.deinitialize(count: 1)
        }
    }

    func lock() {
        withUnsafeMutablePointerToElements { _ = pthread_mutex_lock($0) }
    }

    func unlock() {
        withUnsafeMutablePointerToElements { _ = pthread_mutex_unlock($0) }
    }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try withUnsafeMutablePointerToHeader { try body(&$0.pointee) }
    }
}
