/// The cache's counters (``ClientCache/stats()``).
public struct CacheStats: Sendable, Equatable {
    /// Requests answered from storage, fresh.
    public var hits = 0
    /// Requests answered from storage, stale, while a revalidation ran (stale-while-revalidate).
    public var staleHits = 0
    /// Requests answered with a stale response because the network failed (stale-if-error,
    /// `networkFirst`).
    public var staleOnError = 0
    /// Requests that needed the network.
    public var misses = 0
    /// Requests that joined a fetch already running for an identical request.
    public var coalesced = 0
    /// Network fetches started (shared by the coalesced requests).
    public var fetches = 0
    /// Stored responses a 304 confirmed.
    public var revalidated = 0
    /// Entries and bytes held now.
    public var entries = 0
    /// Bytes held now (bodies and header fields).
    public var bytes = 0
    /// Fetches running now.
    public var inFlight = 0
    /// Mailbox messages the cache has handled (the benchmark's messages per request).
    public var messagesHandled = 0

    /// All zero.
    public init() {}
}
