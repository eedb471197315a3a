import PostgresNIO
import Synchronization

/// The pool connection a storage call runs on, kept so that the call's deadline can close it
/// (the pool then replaces it). A connection leased after the deadline passed is closed at once.
final class LeasedConnection: Sendable {
    private enum State {
        case waiting
        case holding(PostgresConnection)
        case expired
    }

    private let state = Mutex(State.waiting)

    /// Keeps `connection`, or closes it when the deadline already passed.
    func hold(_ connection: PostgresConnection) {
        let expired = state.withLock { state -> Bool in
            guard case .waiting = state else { return true }
            state = .holding(connection)
            return false
        }
        if expired { Self.close(connection) }
    }

    /// Closes the held connection, if any, and any held from now on.
    func close() {
        let held = state.withLock { state -> PostgresConnection? in
            defer { state = .expired }
            guard case .holding(let connection) = state else { return nil }
            return connection
        }
        if let held { Self.close(held) }
    }

    /// Closes without waiting: the channel is closed on its event loop, which fails the query
    /// waiting on it.
    private static func close(_ connection: PostgresConnection) {
        let future: EventLoopFuture<Void> = connection.close()
        _ = future
    }
}
