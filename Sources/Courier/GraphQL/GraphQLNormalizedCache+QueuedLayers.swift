import Foundation

/// Optimistic layers of mutations queued offline (``GraphQLQueuedLayers``).
extension GraphQLNormalizedCache {
    /// A queued perform is about to enqueue its mutation.
    func beginQueuedLayer() {
        queuedLayers.withLock { $0.begin() }
    }

    /// The perform's mutation was not queued: its layer is removed.
    func abandonQueuedLayer(_ layer: Int) {
        queuedLayers.withLock { $0.abandon() }
        removeLayer(layer)
    }

    /// Keeps `layer` over the records until queue item `id` ends.
    func holdQueuedLayer(_ layer: Int, access: Access, for id: Int64) {
        if let settlement = queuedLayers.withLock({ $0.hold(layer, access: access, for: id) }) { settle(settlement) }
    }

    /// Queue item `id` ended as `end`: its layer, if any, is replaced or rolled back.
    func queuedItemEnded(_ id: Int64, _ end: GraphQLQueuedLayers.End) {
        if let settlement = queuedLayers.withLock({ $0.ended(id, end) }) { settle(settlement) }
    }

    private func settle(_ settlement: GraphQLQueuedLayers.Settlement) {
        // The server's records are written under the layer first, so removing it shows them at once.
        if case .replayed(let body) = settlement.end { write(responseBody: body, settlement.access) }
        removeLayer(settlement.layer)
    }
}
