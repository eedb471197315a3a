extension OfflineComponents {
    /// Settles the optimistic layers `records` holds for queued mutations as their items end: a
    /// replay's answer replaces its layer; a dead letter, an expiry, a removal or a `serverWins`
    /// rolls it back. Observed, not subscribed: a stream that fell behind would drop an end and
    /// leave its layer up for the client's life.
    func settleQueuedLayers(of records: GraphQLNormalizedCache) {
        replays.observe { replay in records.queuedItemEnded(replay.itemID, .replayed(body: replay.response.body)) }
        offlineEvents.observe { event in
            switch event {
            case .delivered(let id, _):
                records.queuedItemEnded(id, .delivered)
            case .deadLettered(let id, _), .expired(let id), .removed(let id), .conflictResolved(let id, "serverWins"):
                records.queuedItemEnded(id, .givenUp)
            default:
                break
            }
        }
    }
}
