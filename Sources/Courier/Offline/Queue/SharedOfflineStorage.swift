import Foundation

/// Storage for an offline queue that several clients share: the replicas of a service, each with
/// its own ``APIClient``, draining one queue kept in a database they all reach
/// (``APIClient/Configuration/Offline/sharedStorage``). `CourierPostgres` implements it on
/// PostgreSQL; the default queue, a SQLite file one client owns, needs none of it.
///
/// The queue's rules stay Courier's (the item state machine, backoff, dead letters, conflicts,
/// expiry); a storage only keeps items durably and hands out turns under these rules:
///
/// - **Durable on return.** Every write is committed when its call returns; an error means
///   nothing of it was committed.
/// - **Leases.** ``claim(owner:limit:identity:now:lease:)`` gives its items to `owner` until
///   `now + lease`; a lease not renewed (the replica died or lost its connection) expires, and
///   the item is claimable again, by any replica, with the same idempotency key.
/// - **Ordering keys.** Items with the same ``OfflineItem/orderingKey`` are replayed one at a
///   time, in id order, across all replicas: only a key's first waiting item is ever claimable,
///   and only while no live lease holds it and its backoff is over. Different keys go in
///   parallel.
/// - **Fencing.** A write made for an `owner` changes only the items whose lease that owner still
///   holds; deletes of delivered items are made whoever holds them (the server saw the key).
public protocol SharedOfflineStorage: Sendable {
    /// Stores `items` in one transaction, gives each a new id (ignoring ``OfflineItem/id``),
    /// returns the ids in order, and wakes the other replicas waiting in ``wakeUps()``.
    func insert(_ items: [OfflineItem]) async throws -> [Int64]

    /// Claims for `owner`, until `now + lease`, at most `limit` items, in id order: for each
    /// ordering key, its first waiting item (``OfflineItemState/queued`` or
    /// ``OfflineItemState/retrying``) queued under `identity` or under none, when no live lease
    /// holds it and its ``OfflineItem/nextAttemptAt`` is not after `now`. Items queued under
    /// another identity neither are claimed nor hold their key back. Returned as stored (the
    /// queue marks them ``OfflineItemState/sending`` in memory only).
    func claim(owner: String, limit: Int, identity: String?, now: Date, lease: Duration) async throws -> [OfflineItem]

    /// Extends `owner`'s leases on `ids` to `now + lease`; returns the ids whose lease `owner`
    /// no longer holds (expired and taken by another, or the item is gone).
    func renew(owner: String, ids: [Int64], now: Date, lease: Duration) async throws -> [Int64]

    /// Replaces `updating` and deletes `deleting` in one transaction, releasing their leases.
    /// With an `owner`, an item in `updating` whose lease that owner no longer holds is left
    /// as it is (another replica has its turn now); `nil` (the app's own retry, remove or
    /// resolve) writes whatever holds it.
    func write(owner: String?, updating: [OfflineItem], deleting: [Int64]) async throws

    /// Every stored item, in id order.
    func items() async throws -> [OfflineItem]

    /// How many items wait to be replayed (queued or retrying), whoever holds them.
    func waitingCount() async throws -> Int

    /// Yields whenever items were added by another client sharing the storage (PostgreSQL's
    /// `LISTEN/NOTIFY`), so that idle replicas drain without polling; finishes when the
    /// storage closes. Each yield makes the queue count the waiting items again, so a storage
    /// should skip the inserts made through itself (its client knows of them). A storage
    /// without notifications returns a sequence that never yields (the queue's periodic drain
    /// is the backstop either way).
    func wakeUps() -> AsyncStream<Void>
}
