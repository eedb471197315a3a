import Foundation

extension APIClient {
    /// Forgets the stored responses of `endpoint`'s URL (every identity's).
    public func invalidateCache<Value>(for endpoint: Endpoint<Value>) throws(NetworkError) {
        components.cache?.forget(.invalidate(url: try makeRequest(endpoint.untyped).url.absoluteString))
    }

    /// Forgets the stored responses of every URL under `path` (e.g. `"v1/users"` forgets
    /// `/v1/users`, `/v1/users/42`, `/v1/users?page=2`).
    public func invalidateCache(under path: String) throws(NetworkError) {
        let url = try makeRequest(Endpoint<EmptyResponse>(path: path).untyped).url.absoluteString
        components.cache?.forget(.invalidatePrefix(url))
    }

    /// Forgets the stored responses that are no longer fresh (and no longer usable if the
    /// network fails).
    public func clearExpiredCache() {
        components.cache?.forget(.clearExpired)
    }

    /// Forgets every stored response.
    public func clearCache() {
        components.cache?.forget(.clear)
    }

    /// Every cache storage event from now on (a corrupt database moved aside, a storage failure).
    public func cacheEvents(buffer: Int = 100) -> AsyncStream<CacheEvent> {
        components.cacheEvents.subscribe(bufferingPolicy: .bufferingNewest(buffer))
    }

    /// The cache's counters (all zero without ``Configuration/caching``).
    public func cacheStats() async throws(NetworkError) -> CacheStats {
        guard let cache = components.cache else { return CacheStats() }
        do {
            return try await cache.stats()
        } catch {
            throw NetworkError(answer: error)
        }
    }
}
