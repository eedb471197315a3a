/// Where a cache opens its persistent tier: ``SQLiteCacheStorage`` in use; tests put slow or
/// failing doubles in its place. Each cache instance opens it once, on its own thread.
protocol PersistentCacheStorage: Sendable {
    /// Opens (or creates) the tier at `path`, bounded by `maxBytes`, and where a corrupt file
    /// was moved aside, if it was.
    func open(path: String, maxBytes: Int) throws -> (store: any PersistentCacheStore, movedAside: String?)
}
