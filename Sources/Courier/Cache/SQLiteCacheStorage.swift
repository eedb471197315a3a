/// The cache's persistent tier in use: a SQLite database (``PersistentCache``).
struct SQLiteCacheStorage: PersistentCacheStorage {
    func open(path: String, maxBytes: Int) throws -> (store: any PersistentCacheStore, movedAside: String?) {
        let (cache, movedAside) = try PersistentCache.open(path: path, maxBytes: maxBytes)
        return (cache, movedAside)
    }
}
