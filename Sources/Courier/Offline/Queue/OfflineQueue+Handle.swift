extension OfflineQueue {
    /// What the client and the sync coordinator hold to use the offline queue: its mailbox, and
    /// the count of waiting items it publishes (read without a message) once it has opened its
    /// store.
    struct Handle: Sendable {
        let mailbox: Mailbox<Message>
        let waiting: LatestValue<Int>
        /// Open once the queue has first opened its store (or failed to): before that, `waiting`
        /// does not count the stored writes yet.
        var loaded = Latch()
        /// The queue replays each ordering key apart (a ``SharedOfflineQueue``): an item
        /// backing off holds back only its key, not the drain.
        var ordersByKey = false

        /// How many items wait to be replayed: once the store has been opened, so that the
        /// writes stored by an earlier run are counted from the first call (the first call
        /// waits for the open; every later one reads the published value at once).
        nonisolated(nonsending) func waitingCount() async -> Int {
            if !loaded.isOpen { await loaded.wait() }
            return waiting.value
        }

        /// Stores `request` durably and returns its id once it is on disk. `keyMayBeInProgress`:
        /// it was already sent under its idempotency key and got no answer, so the server may
        /// still be applying it (a 409 to its replay is then not a conflict).
        nonisolated(nonsending) func enqueue(
            _ request: HTTPRequest, requiresAuth: Bool, keyMayBeInProgress: Bool = false
        ) async throws(NetworkError) -> Int64 {
            try await enqueue(OfflineWrite(request: request, requiresAuth: requiresAuth, keyMayBeInProgress: keyMayBeInProgress))
        }

        /// Stores `write` durably and returns its id once it is on disk.
        nonisolated(nonsending) func enqueue(_ write: OfflineWrite) async throws(NetworkError) -> Int64 {
            try await mailbox.request { .enqueue(write, $0) }
        }

        nonisolated(nonsending) func items() async throws(NetworkError) -> [OfflineItem] { try await mailbox.request { .items($0) } }
        nonisolated(nonsending) func retry(_ id: Int64) async throws(NetworkError) { try await mailbox.request { .retry(id, $0) } }
        nonisolated(nonsending) func remove(_ id: Int64) async throws(NetworkError) { try await mailbox.request { .remove(id, $0) } }
        nonisolated(nonsending) func clear() async throws(NetworkError) { try await mailbox.request { .clear($0) } }

        nonisolated(nonsending) func resolve(_ id: Int64, _ resolution: ConflictResolution) async throws(NetworkError) {
            try await mailbox.request { .resolve(id, resolution, $0) }
        }

        /// The next due items, in order, at most `limit`, claimed for a replay under `identity`
        /// (the session's now; `nil`: signed out).
        nonisolated(nonsending) func claim(limit: Int, identity: String?) async throws(NetworkError) -> [OfflineItem] {
            try await mailbox.request { .claim(limit: limit, identity: identity, $0) }
        }

        /// The next due item, claimed (for a session without identity).
        nonisolated(nonsending) func claimNext() async throws(NetworkError) -> OfflineItem? {
            try await claim(limit: 1, identity: nil).first
        }

        /// Counts the waiting items again (another client sharing the storage added some) and
        /// returns the count.
        nonisolated(nonsending) func refresh() async throws(NetworkError) -> Int {
            try await mailbox.request { .refresh($0) }
        }

        /// Tells the queue a claimed item was delivered; it leaves the queue without a wait.
        func delivered(_ id: Int64, status: Int) throws(NetworkError) {
            do {
                try mailbox.send(.delivered(id, status: status))
            } catch {
                throw NetworkError(answer: error)
            }
        }

        /// Hands replays' verdicts to the queue; returns the items' new states (`nil`: it left).
        nonisolated(nonsending) func settle(_ verdicts: [(id: Int64, verdict: ReplayVerdict)]) async throws(NetworkError) -> [OfflineItemState?] {
            try await mailbox.request { .settle(verdicts, $0) }
        }

        /// Hands a replay's verdict to the queue; returns the item's new state (`nil`: it left).
        nonisolated(nonsending) func settle(_ id: Int64, _ verdict: ReplayVerdict) async throws(NetworkError) -> OfflineItemState? {
            try await settle([(id, verdict)]).first ?? nil
        }
    }
}
