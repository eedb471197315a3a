extension Cache {
    /// What the client holds to use the cache: its mailbox and the waiter numbering.
    struct Handle: Sendable {
        let mailbox: Mailbox<Message>
        private let lastWaiter = Locked<UInt64>(0)

        init(mailbox: Mailbox<Message>) {
            self.mailbox = mailbox
        }

        /// The response to `request`, stored or fetched. Cancelling the calling task answers it
        /// `cancelled` at once and leaves the shared fetch (cancelled when nobody is left).
        /// - Throws: the fetch's ``NetworkError``, ``NetworkError/notCached`` (`cacheOnly`), or
        ///   a ``RuntimeError`` if the cache is unavailable or restarted while holding the request.
        func get(
            _ request: HTTPRequest, options: RequestOptions, policy: CachePolicy, ttl: CacheTTL, identity: String?
        ) async throws -> HTTPResponse {
            let waiter = lastWaiter.withLock { $0 += 1; return $0 }
            let cached = CacheRequest(waiter: waiter, request: request, options: options, policy: policy, ttl: ttl, identity: identity)
            return try await mailbox.ask({ .get(cached, $0) }, onCancel: .leave(waiter: waiter), cancelledError: NetworkError.cancelled)
        }

        /// Tells the cache something that needs no answer; a stopped cache has nothing to forget.
        func tell(_ message: Message) {
            try? mailbox.send(message)
        }

        /// The cache's counters.
        func stats() async throws -> CacheStats {
            try await mailbox.ask { .stats($0) }
        }
    }
}
