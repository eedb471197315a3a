extension CacheEvent: CustomStringConvertible {
    /// What happened to the cache's storage, in a line.
    public var description: String {
        switch self {
        case .storageReset(let path): "cache storage reset: the damaged file was moved to \(path)"
        case .storageFailed(let reason): "cache storage failed: \(reason)"
        }
    }
}
