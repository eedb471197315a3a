import Foundation

/// The optimistic layers of mutations queued offline
/// (``ClientOfflineQueue/perform(_:optimisticResponse:headers:options:)``), by queue item: each
/// stays over the records until the queue replays its item (the server's answer then replaces
/// it) or gives up on it (dead, expired, removed, dropped by `serverWins`: rolled back).
///
/// An item can end before its caller has learnt its id (a drain may replay it at once): while a
/// queued perform is between its enqueue and ``hold(_:access:for:)``, ends of unknown items are
/// kept, at most ``earlyLimit``, so the late hold finds them.
struct GraphQLQueuedLayers: Sendable {
    /// How an item ended, as the layer needs it.
    enum End: Sendable {
        /// A replay got a 2xx with this body: its data replaces the layer.
        case replayed(body: Data)
        /// It left the queue delivered, its answer not seen here: the layer goes.
        case delivered
        /// The queue gave up on it: the layer is rolled back.
        case givenUp
    }

    /// What to do with a layer now that its item ended.
    struct Settlement: Sendable {
        let layer: Int
        let access: GraphQLNormalizedCache.Access
        let end: End
    }

    static let earlyLimit = 1024

    private var held: [Int64: (layer: Int, access: GraphQLNormalizedCache.Access)] = [:]
    /// Queued performs that have enqueued but not yet held their layer.
    private var pending = 0
    private var early: [Int64: End] = [:]
    private var earlyOrder: [Int64] = []

    /// A queued perform is about to enqueue: ends of unknown items are kept until it holds.
    mutating func begin() { pending += 1 }

    /// The perform did not queue its item (it was sent, or failed): nothing to hold.
    mutating func abandon() { pending = max(0, pending - 1) }

    /// Holds `layer` until item `id` ends; the settlement at once if it already ended.
    mutating func hold(_ layer: Int, access: GraphQLNormalizedCache.Access, for id: Int64) -> Settlement? {
        pending = max(0, pending - 1)
        if let end = early.removeValue(forKey: id) { return Settlement(layer: layer, access: access, end: end) }
        held[id] = (layer, access)
        if pending == 0 {
            early = [:]
            earlyOrder = []
        }
        return nil
    }

    /// Item `id` ended: the settlement of its layer, if one is held. A replay's answer comes
    /// before the item's `delivered` event, which then finds nothing.
    mutating func ended(_ id: Int64, _ end: End) -> Settlement? {
        if let (layer, access) = held.removeValue(forKey: id) { return Settlement(layer: layer, access: access, end: end) }
        guard pending > 0, early[id] == nil else { return nil }
        early[id] = end
        earlyOrder.append(id)
        if earlyOrder.count > Self.earlyLimit { early[earlyOrder.removeFirst()] = nil }
        return nil
    }
}
