extension Cache {
    /// What the client holds to use the cache: its mailbox and its shelf of entries (read
    /// without a message for fresh hits).
    final class Handle: Sendable {
        let mailbox: Mailbox<Message>
        let shelf: Locked<CacheShelf>
        let clock: any TimeSource
        /// The client's default policy and freshness, for requests whose options set none.
        let defaultPolicy: CachePolicy
        let defaultTTL: CacheTTL

        init(mailbox: Mailbox<Message>, shelf: Locked<CacheShelf>, clock: any TimeSource, defaultPolicy: CachePolicy, defaultTTL: CacheTTL) {
            self.mailbox = mailbox
            self.shelf = shelf
            self.clock = clock
            self.defaultPolicy = defaultPolicy
            self.defaultTTL = defaultTTL
        }

        /// The stored response under `key` if it is fresh and was stored for a request with the
        /// same values of the headers it varies on as `headers`, read from the shelf without a
        /// message (and made the most recently used); `nil` otherwise (then ``get(_:)``). Takes the
        /// headers, not the request, so that it can run before the request's URL is parsed.
        func freshResponse(headers: HTTPHeaders, key: CacheKey) -> HTTPResponse? {
            // The injected clock is read before the lock, never under it.
            let now = clock.currentDate
            return shelf.withLock { shelf in
                guard let entry = shelf.storage.entry(for: key), entry.matches(headers), entry.isFresh(at: now) else { return nil }
                shelf.freshHits += 1
                return entry.served(at: now)
            }
        }

        /// The response to `cached`, stored or fetched. Cancelling the calling task answers it
        /// `cancelled` at once and leaves the shared fetch (cancelled when nobody is left).
        /// - Throws: the fetch's ``NetworkError``, ``NetworkError/notCached`` (`cacheOnly`), or
        ///   a ``RuntimeError`` if the cache is unavailable or restarted while holding the request.
        nonisolated(nonsending) func get(_ cached: CacheRequest) async throws -> HTTPResponse {
            try await mailbox.ask({ .get(cached, $0) }, onCancel: .leave(cached), cancelledError: NetworkError.cancelled)
        }

        /// Forgets stored responses: on the shelf at once (so the caller's next read cannot find
        /// them), then in the cache's persistent tier (a message). `message` is `invalidate`,
        /// `invalidatePrefix`, `dropIdentity`, `dropCookies`, `clearExpired` or `clear`.
        func forget(_ message: Message) {
            if let matches = message.forgottenKeys {
                shelf.withLock { $0.storage.removeAll { key, _ in matches(key) } }
            }
            try? mailbox.send(message)
        }

        /// The cache's counters.
        nonisolated(nonsending) func stats() async throws -> CacheStats {
            try await mailbox.ask { .stats($0) }
        }
    }
}
