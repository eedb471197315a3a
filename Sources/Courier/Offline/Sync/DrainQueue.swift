/// What the sync coordinator and its drains ask of the offline queue: its
/// ``OfflineQueue/Handle`` in use; tests put failing doubles in its place.
///
/// The queue answers a call it cannot serve (it is restarting or closed, its storage failed)
/// with a ``NetworkError``, which ends a drain quietly. Any other error breaks this contract: the
/// drain fails, and with it the coordinator whose scope runs it (its next instance starts again
/// from what the queue holds).
protocol DrainQueue: Sendable {
    /// How many items wait to be replayed, as the queue last published it.
    var waiting: LatestValue<Int> { get }
    /// Whether it replays each ordering key apart: an item backing off then holds back only
    /// its key's later items, so the drain goes on with the other keys.
    var ordersByKey: Bool { get }
    /// How many items wait, once the queue has opened its store.
    nonisolated(nonsending) func waitingCount() async -> Int
    /// The next due items, in order, at most `limit`, claimed for a replay under `identity`.
    nonisolated(nonsending) func claim(limit: Int, identity: String?) async throws -> [OfflineItem]
    /// A claimed item was delivered: it leaves the queue without a wait.
    func delivered(_ id: Int64, status: Int) throws
    /// Replays' verdicts; the items' new states (`nil`: it left).
    nonisolated(nonsending) func settle(_ verdicts: [(id: Int64, verdict: ReplayVerdict)]) async throws -> [OfflineItemState?]
    /// A replay's verdict; the item's new state (`nil`: it left).
    nonisolated(nonsending) func settle(_ id: Int64, _ verdict: ReplayVerdict) async throws -> OfflineItemState?
}

extension DrainQueue {
    /// One order for every item: an item backing off holds back all the later ones.
    var ordersByKey: Bool { false }
}

extension OfflineQueue.Handle: DrainQueue {}
