/// A value guarded by a lock: the only way to read or write it is `withLock`. Copies share the
/// value and its lock.
///
/// The value must take memory (not `Void` or an empty struct): TSan reports a race on
/// `inout` access to a zero-sized header even under the mutex. Use ``Lock`` for a bare lock.
package struct Locked<Value> {
    /// The lock and the value; read outside this file only to lock without the value
    /// (``Reply``'s `deinit`).
    let storage: LockStorage<Value>

    package init(_ value: Value) {
        precondition(MemoryLayout<Value>.size > 0, "Locked needs a value that takes memory; use Lock")
        storage = .make(value)
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try storage.withLock(body)
    }

    /// Runs `body` with exclusive access to the value and `argument` to keep: a closure cannot
    /// move what it captures, but it can move what it is given (a mailbox queues a message so,
    /// instead of copying it).
    package func withLock<Argument, T>(
        passing argument: consuming Argument, _ body: (inout Value, consuming Argument) throws -> T
    ) rethrows -> T {
        try storage.withLock(passing: argument, body)
    }
}

// Invariant: the value is reachable only through `storage.withLock`, and only Sendable values
// are shared across threads.
extension Locked: @unchecked Sendable where Value: Sendable {}
