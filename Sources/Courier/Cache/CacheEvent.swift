/// What happened to the cache's storage (``ClientCache/events(buffer:)``).
public enum CacheEvent: Sendable, Equatable {
    /// The database file of the persistent tier was corrupt: it was moved to `movedTo` and a
    /// fresh one created. Nothing stored before is lost for good: the old file is still there.
    case storageReset(movedTo: String)
    /// The persistent tier failed (the description says how); the cache goes on in memory.
    case storageFailed(String)
}
