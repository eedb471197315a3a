import Foundation

/// The response cache's calls: `client.cache`.
///
/// Without ``APIClient/Configuration/caching`` every call throws
/// ``NetworkError/componentUnavailable(_:)`` named `"cache"`, and every event stream finishes at
/// once (the rule of every optional group; see ``APIClient``).
public struct ClientCache: Sendable {
    let handle: Cache.Handle?
    let events: EventBroadcaster<CacheEvent>
    /// Builds the URLs invalidations name, as the client's calls do.
    let requests: RequestBuilder

    /// Forgets the stored responses of `endpoint`'s URL (every identity's).
    public func invalidate<Value>(_ endpoint: Endpoint<Value>) throws(NetworkError) {
        let cache = try cache()
        cache.forget(.invalidate(url: try requests.url(for: endpoint.untyped).absoluteString))
    }

    /// Forgets the stored responses of every URL under `path` (e.g. `"v1/users"` forgets
    /// `/v1/users`, `/v1/users/42`, `/v1/users?page=2`).
    public func invalidate(under path: String) throws(NetworkError) {
        let cache = try cache()
        let url = try requests.url(for: Endpoint<EmptyResponse>(path: path).untyped).absoluteString
        cache.forget(.invalidatePrefix(url))
    }

    /// Forgets the stored responses that are no longer fresh and past their
    /// stale-while-revalidate and stale-if-error windows (in memory; the persistent tier keeps
    /// them until it needs the room).
    public func clearExpired() throws(NetworkError) {
        try cache().forget(.clearExpired)
    }

    /// Forgets every stored response.
    public func clear() throws(NetworkError) {
        try cache().forget(.clear)
    }

    /// The cache's counters.
    public func stats() async throws(NetworkError) -> CacheStats {
        let cache = try cache()
        do {
            return try await cache.stats()
        } catch {
            throw NetworkError(answer: error)
        }
    }

    /// Every cache storage event from now on (a corrupt database moved aside, a storage
    /// failure); a subscriber that falls behind keeps the newest `buffer` events.
    public func events(buffer: Int = ClientGroup.eventBuffer) -> AsyncStream<CacheEvent> {
        guard handle != nil else { return ClientGroup.finished() }
        return events.subscribe(bufferingPolicy: .bufferingNewest(buffer))
    }

    private func cache() throws(NetworkError) -> Cache.Handle {
        guard let cache = handle else { throw ClientGroup.cache.unavailable }
        return cache
    }
}
