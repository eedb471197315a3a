/// Fans events out to any number of subscribers, each with its own `AsyncStream`.
///
/// Components publish what changed (supervision events, connectivity, token changes, request
/// events) through one of these, so that subscribers keep a local snapshot instead of asking
/// (push, don't poll). Publishing with no subscriber costs one lock round trip.
final class EventBroadcaster<Event: Sendable>: Sendable {
    private struct State {
        var subscribers: [Int: AsyncStream<Event>.Continuation] = [:]
        var observers: [@Sendable (Event) -> Void] = []
        var nextID = 0
        var finished = false
    }

    private let state = Locked(State())

    /// Creates a broadcaster with no subscribers.
    init() {}

    /// A new stream of every event published from now on. It ends when the broadcaster
    /// finishes; cancelling its consumer unsubscribes it.
    func subscribe(
        bufferingPolicy: AsyncStream<Event>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: bufferingPolicy)
        let id: Int? = state.withLock { state in
            guard !state.finished else { return nil }
            defer { state.nextID += 1 }
            state.subscribers[state.nextID] = continuation
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Calls `observer` with every event published from now on, in the publisher's context and
    /// order, until the broadcaster finishes: for what must see every event (a stream may drop
    /// the oldest) and does little with each.
    func observe(_ observer: @escaping @Sendable (Event) -> Void) {
        state.withLock { state in
            if !state.finished { state.observers.append(observer) }
        }
    }

    /// Whether anyone is listening; lets publishers skip building an event nobody reads.
    var hasSubscribers: Bool { state.withLock { !$0.subscribers.isEmpty || !$0.observers.isEmpty } }

    /// Whether ``finish()`` has been called.
    var isFinished: Bool { state.withLock { $0.finished } }

    /// Delivers `event` to every current subscriber.
    func publish(_ event: Event) {
        let (subscribers, observers) = state.withLock { (Array($0.subscribers.values), $0.observers) }
        for observer in observers { observer(event) }
        for subscriber in subscribers { subscriber.yield(event) }
    }

    /// Ends every subscription; later subscribers get an already-finished stream.
    func finish() {
        let subscribers = state.withLock { state in
            state.finished = true
            state.observers = []
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }
}
