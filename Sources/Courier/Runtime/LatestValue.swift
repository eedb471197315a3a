/// The latest value a component published, readable by anyone without a message: a "watch"
/// cell. The owning component writes it when its state changes, before it answers whoever
/// caused the change; readers on the hot path take a local look instead of asking.
///
/// Why not an `AsyncStream` subscription feeding a snapshot: delivery through a stream is
/// asynchronous, so a reader could still see the old value after the change's ask returned
/// (a request sent right after `signIn` would go without the token), and each reader would need
/// a task of its own to consume the stream. Subscribers that want every change still have the
/// component's event stream.
final class LatestValue<Value: Sendable>: Sendable {
    // Invariant: the value is read and replaced only under the lock (`Locked`).
    private let storage: Locked<Value>

    init(_ value: Value) {
        storage = Locked(value)
    }

    /// The value last published.
    var value: Value { storage.withLock { $0 } }

    /// What `body` reads from the value last published, without a copy of the whole value.
    func read<Part>(_ body: (Value) -> Part) -> Part {
        storage.withLock { body($0) }
    }

    /// Publishes `value` (only the owning component calls this).
    func publish(_ value: Value) {
        storage.withLock { $0 = value }
    }
}
