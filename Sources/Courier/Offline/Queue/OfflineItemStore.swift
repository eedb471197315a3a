/// An opened offline store: the writes an ``OfflineQueue`` makes, each durable when it returns.
/// Used from the queue's own thread only. ``OfflineStore`` (SQLite) in use.
protocol OfflineItemStore: AnyObject {
    /// Stores new items, in one transaction.
    func insert(_ items: [OfflineItem]) throws
    /// Replaces stored items, in one transaction.
    func update(_ items: [OfflineItem]) throws
    /// Replaces `updating` and deletes `deleting`, in one transaction.
    func write(updating: [OfflineItem], deleting: [Int64]) throws
}
