extension OfflineQueue {
    /// What the client and the sync coordinator hold to use the offline queue: its mailbox, and
    /// the count of waiting items it publishes (read without a message).
    struct Handle: Sendable {
        let mailbox: Mailbox<Message>
        let waiting: LatestValue<Int>

        /// Stores `request` durably and returns its id once it is on disk.
        func enqueue(_ request: HTTPRequest, requiresAuth: Bool) async throws(NetworkError) -> Int64 {
            try await ask { .enqueue(request, requiresAuth: requiresAuth, $0) }
        }

        func items() async throws(NetworkError) -> [OfflineItem] { try await ask { .items($0) } }
        func retry(_ id: Int64) async throws(NetworkError) { try await ask { .retry(id, $0) } }
        func remove(_ id: Int64) async throws(NetworkError) { try await ask { .remove(id, $0) } }
        func clear() async throws(NetworkError) { try await ask { .clear($0) } }

        func resolve(_ id: Int64, _ resolution: ConflictResolution) async throws(NetworkError) {
            try await ask { .resolve(id, resolution, $0) }
        }

        func claimNext() async throws(NetworkError) -> OfflineItem? { try await ask { .claimNext($0) } }

        /// Hands a replay's verdict to the queue; returns the item's new state (`nil`: it left).
        func settle(_ id: Int64, _ verdict: ReplayVerdict) async throws(NetworkError) -> OfflineItemState? {
            try await ask { .settle(id, verdict, $0) }
        }

        private func ask<Value: Sendable>(_ makeMessage: (Reply<Value>) -> Message) async throws(NetworkError) -> Value {
            do {
                return try await mailbox.ask(makeMessage)
            } catch {
                throw NetworkError(answer: error)
            }
        }
    }
}
