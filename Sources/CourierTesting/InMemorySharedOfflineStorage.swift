import Courier
import Foundation

/// A ``SharedOfflineStorage`` kept in memory: the reference implementation of the contract
/// (``SharedOfflineStorageContract`` checks it), and the storage several clients in one test
/// process share to play the replicas of a service.
///
/// Every call is one critical section, so a call is atomic, as a database transaction would be.
/// ``isDown`` makes every call fail (a database that cannot be reached) until it is cleared.
public final class InMemorySharedOfflineStorage: SharedOfflineStorage, Sendable {
    /// Thrown by every call while the storage ``isDown``.
    public struct Unavailable: Error, CustomStringConvertible {
        /// Says the storage is down.
        public var description: String { "the shared offline storage is unavailable" }
    }

    private struct Row {
        var item: OfflineItem
        /// Who holds its turn, and until when (a lease past `until` is expired, but stays the
        /// owner's until another claims the item).
        var owner: String?
        var until: Date?
    }

    private struct State {
        var rows: [Int64: Row] = [:]
        var lastID: Int64 = 0
        var down = false
        var subscribers: [Int: AsyncStream<Void>.Continuation] = [:]
        var nextSubscriber = 0
    }

    private let state = Locked(State())

    /// An empty storage.
    public init() {}

    /// While `true`, every call throws ``Unavailable`` and changes nothing.
    public var isDown: Bool {
        get { state.withLock { $0.down } }
        set { state.withLock { $0.down = newValue } }
    }

    /// Who holds item `id`'s lease and until when (`nil`: the item is gone or not leased).
    public func lease(of id: Int64) -> (owner: String, until: Date)? {
        state.withLock { state in
            guard let row = state.rows[id], let owner = row.owner, let until = row.until else { return nil }
            return (owner, until)
        }
    }

    /// Finishes every ``wakeUps()`` sequence, as a storage that closes does.
    public func close() {
        let subscribers = state.withLock { state in
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }

    /// Stores `items` under new ids, in order, and wakes every subscriber.
    public func insert(_ items: [OfflineItem]) async throws -> [Int64] {
        let (ids, subscribers) = try state.withLock { state in
            guard !state.down else { throw Unavailable() }
            var ids: [Int64] = []
            for item in items {
                state.lastID += 1
                state.rows[state.lastID] = Row(item: Self.item(item, id: state.lastID))
                ids.append(state.lastID)
            }
            return (ids, Array(state.subscribers.values))
        }
        if !ids.isEmpty {
            for subscriber in subscribers { subscriber.yield() }
        }
        return ids
    }

    /// Leases each ordering key's first waiting item, as the contract says, to `owner`.
    public func claim(owner: String, limit: Int, identity: String?, now: Date, lease: Duration) async throws -> [OfflineItem] {
        try state.withLock { state in
            guard !state.down else { throw Unavailable() }
            var decided: Set<String> = []
            var claimed: [OfflineItem] = []
            for id in state.rows.keys.sorted() where claimed.count < limit {
                guard let row = state.rows[id], row.item.state == .queued || row.item.state == .retrying,
                      !decided.contains(row.item.orderingKey) else { continue }
                // Another user's write neither goes now nor holds its key back.
                if let queuedUnder = row.item.sessionIdentity, queuedUnder != identity { continue }
                decided.insert(row.item.orderingKey)
                if let until = row.until, until > now { continue }   // a live lease: the key's turn is taken
                if let next = row.item.nextAttemptAt, next > now { continue }   // backing off
                state.rows[id]?.owner = owner
                state.rows[id]?.until = now.addingTimeInterval(Self.seconds(lease))
                claimed.append(row.item)
            }
            return claimed
        }
    }

    /// Extends the leases `owner` still holds; returns the others.
    public func renew(owner: String, ids: [Int64], now: Date, lease: Duration) async throws -> [Int64] {
        try state.withLock { state in
            guard !state.down else { throw Unavailable() }
            var lost: [Int64] = []
            for id in ids {
                guard state.rows[id]?.owner == owner else {
                    lost.append(id)
                    continue
                }
                state.rows[id]?.until = now.addingTimeInterval(Self.seconds(lease))
            }
            return lost
        }
    }

    /// Replaces and deletes items, fenced by `owner`, releasing their leases.
    public func write(owner: String?, updating: [OfflineItem], deleting: [Int64]) async throws {
        try state.withLock { state in
            guard !state.down else { throw Unavailable() }
            for item in updating {
                guard let row = state.rows[item.id] else { continue }
                if let owner, row.owner != owner { continue }   // fenced: another replica has its turn
                state.rows[item.id] = Row(item: item)
            }
            for id in deleting { state.rows[id] = nil }
        }
    }

    /// Every item, in id order.
    public func items() async throws -> [OfflineItem] {
        try state.withLock { state in
            guard !state.down else { throw Unavailable() }
            return state.rows.keys.sorted().compactMap { state.rows[$0]?.item }
        }
    }

    /// The queued and retrying items, leased or not.
    public func waitingCount() async throws -> Int {
        try state.withLock { state in
            guard !state.down else { throw Unavailable() }
            return state.rows.values.count { $0.item.state == .queued || $0.item.state == .retrying }
        }
    }

    /// A sequence that yields after each insert, until ``close()``.
    public func wakeUps() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            defer { state.nextSubscriber += 1 }
            state.subscribers[state.nextSubscriber] = continuation
            return state.nextSubscriber
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    private static func item(_ item: OfflineItem, id: Int64) -> OfflineItem {
        OfflineItem(
            id: id, request: item.request, requiresAuth: item.requiresAuth, sessionIdentity: item.sessionIdentity,
            attemptTimeout: item.attemptTimeout, deadline: item.deadline, idempotencyKey: item.idempotencyKey,
            createdAt: item.createdAt, expiresAt: item.expiresAt, attempts: item.attempts, lastError: item.lastError,
            state: item.state, nextAttemptAt: item.nextAttemptAt, serverResponse: item.serverResponse,
            orderingKey: item.orderingKey)
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
