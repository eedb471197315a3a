#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value and the mutex guarding it in one allocation: the value is a `ManagedBuffer`'s
/// header and the mutex its single element, reached only through a pointer, so its address
/// never changes.
/// (`ManagedBuffer` cannot be `Sendable`; `Lock` and `Locked` carry the promise.)
final class LockStorage<Value>: ManagedBuffer<Value, pthread_mutex_t> {
    // Invariant: the mutex is initialised in `make` (adaptive on glibc), destroyed only in
    // `deinit`, and touched only through pthread calls; the value is read and written only
    // while the mutex is held.

    static func make(_ value: Value) -> LockStorage<Value> {
        let storage = unsafeDowncast(create(minimumCapacity: 1) { _ in value }, to: LockStorage<Value>.self)
        storage.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            var attributes = pthread_mutexattr_t()
            precondition(pthread_mutexattr_init(&attributes) == 0, "pthread_mutexattr_init failed")
            defer { pthread_mutexattr_destroy(&attributes) }
            #if canImport(Glibc)
            // Spin briefly before sleeping: the critical sections are short, and a mailbox's
            // lock is taken by senders and its consumer on other cores at once (the figures
            // are in Benchmarks/RESULTS.md).
            let typed = pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
            precondition(typed == 0, "pthread_mutexattr_settype failed: \(typed)")
            #endif
            let status = pthread_mutex_init(mutex, &attributes)
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

    /// Takes the mutex if it is free; false (without waiting) if another thread holds it.
    func tryLock() -> Bool {
        withUnsafeMutablePointerToElements { pthread_mutex_trylock($0) == 0 }
    }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try withUnsafeMutablePointerToHeader { try body(&$0.pointee) }
    }

    /// `withLock`, with `argument` handed to `body` to keep (moved, not captured).
    func withLock<Argument, T>(passing argument: consuming Argument, _ body: (inout Value, consuming Argument) throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        // The header's address is fixed for the storage's life, which `self` spans here.
        let value = withUnsafeMutablePointerToHeader { $0 }
        return try body(&value.pointee, argument)
    }
}
