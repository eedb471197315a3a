/// The cache's entries where the client can see them: the ``Cache`` actor files and removes
/// entries, and the client's hit path (``Cache/Handle/freshResponse(headers:key:)``) serves a
/// fresh one without sending a message, under the same lock. Both touch the LRU order, so
/// eviction stays least recently *used*.
struct CacheShelf: Sendable {
    var storage: CacheStorage<CacheKey>
    /// Fresh entries served by the hit path (the actor's counters do not see them).
    var freshHits = 0
}
