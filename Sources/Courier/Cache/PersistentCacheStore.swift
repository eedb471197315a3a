import Foundation

/// An opened persistent tier: what a ``Cache`` reads and writes there, each call done when it
/// returns. Used from the cache's own thread only. ``PersistentCache`` (SQLite) in use.
protocol PersistentCacheStore: AnyObject {
    /// The entry under `key`, marked used at `now`; `nil` if none.
    func entry(for key: CacheKey, now: Date) throws -> CacheEntry?
    /// Stores `entry` under `key` (replacing any), within the tier's byte limit.
    func store(_ entry: CacheEntry, for key: CacheKey, now: Date) throws
    func remove(_ key: CacheKey) throws
    /// Drops every identity's entries for `url`, or, with `below`, for `url` and the URLs under it.
    func remove(url: String, below: Bool) throws
    /// Drops `identity`'s entries, its cookie partitions included.
    func remove(identity: String) throws
    /// Drops the entries of requests that carried cookies.
    func removeCookiePartitions() throws
    /// Drops every entry stored for a session (identity other than "").
    func removePrivate() throws
    func removeAll() throws
}
