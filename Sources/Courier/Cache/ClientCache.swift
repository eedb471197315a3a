import Foundation

/// The response cache's calls: `client.cache`. Without ``APIClient/Configuration/caching``
/// nothing is stored: invalidations do nothing and the counters stay zero.
public struct ClientCache: Sendable {
    let client: APIClient

    /// Forgets the stored responses of `endpoint`'s URL (every identity's).
    public func invalidate<Value>(_ endpoint: Endpoint<Value>) throws(NetworkError) {
        client.components.cache?.forget(.invalidate(url: try client.makeRequest(endpoint.untyped).url.absoluteString))
    }

    /// Forgets the stored responses of every URL under `path` (e.g. `"v1/users"` forgets
    /// `/v1/users`, `/v1/users/42`, `/v1/users?page=2`).
    public func invalidate(under path: String) throws(NetworkError) {
        let url = try client.makeRequest(Endpoint<EmptyResponse>(path: path).untyped).url.absoluteString
        client.components.cache?.forget(.invalidatePrefix(url))
    }

    /// Forgets the stored responses that are no longer fresh and past their
    /// stale-while-revalidate and stale-if-error windows (in memory; the persistent tier keeps
    /// them until it needs the room).
    public func clearExpired() {
        client.components.cache?.forget(.clearExpired)
    }

    /// Forgets every stored response.
    public func clear() {
        client.components.cache?.forget(.clear)
    }

    /// The cache's counters.
    public func stats() async throws(NetworkError) -> CacheStats {
        guard let cache = client.components.cache else { return CacheStats() }
        do {
            return try await cache.stats()
        } catch {
            throw NetworkError(answer: error)
        }
    }

    /// Every cache storage event from now on (a corrupt database moved aside, a storage
    /// failure); a subscriber that falls behind keeps the newest `buffer` events.
    public func events(buffer: Int = APIClient.eventBuffer) -> AsyncStream<CacheEvent> {
        client.components.cacheEvents.subscribe(bufferingPolicy: .bufferingNewest(buffer))
    }
}
