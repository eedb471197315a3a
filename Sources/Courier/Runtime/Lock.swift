#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutual-exclusion lock over a heap-allocated `pthread_mutex_t`.
///
/// Courier's runtime primitives (reply handles, latches, event fan-out, counters) need a
/// lock. `Synchronization.Mutex` makes ThreadSanitizer report races that are not there on
/// Linux, and an inline `pthread_mutex_t` addressed as `&self.field` is reported as an
/// access race, so the mutex lives in its own allocation whose address never changes
/// (the same shape as SwiftNIO's `NIOLock`).
package final class Lock: @unchecked Sendable {
    // Invariant: `mutex` is allocated and initialised in `init`, destroyed only in `deinit`,
    // and only ever touched through pthread calls, which are thread-safe by contract.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` while holding the lock. `body` must not suspend or re-enter the lock.
    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A value guarded by a `Lock`: the only way to read or write it is `withLock`.
package final class Locked<Value>: @unchecked Sendable {
    // Invariant: `value` is read and written only inside `lock.withLock`.
    private let lock = Lock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try lock.withLock { try body(&value) }
    }
}
