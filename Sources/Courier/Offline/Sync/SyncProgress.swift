/// How a drain of the offline queue is going, published as it goes
/// (``ClientOfflineQueue/progress(buffer:)``) and returned by ``ClientOfflineQueue/sync()``.
public struct SyncProgress: Sendable, Equatable {
    /// Items waiting when the drain started (the writes stored by an earlier run included), and
    /// those added while it ran: `done + failed` never exceeds it.
    public var total: Int
    /// Items this drain delivered (or dropped because the server won a conflict).
    public var done: Int
    /// Replays that did not deliver (failed, conflicted, or were interrupted).
    public var failed: Int
    /// The item being replayed, if one is.
    public var currentItem: Int64?
    /// Whether the drain has ended.
    public var isFinished: Bool

    /// Creates a progress report.
    public init(total: Int, done: Int = 0, failed: Int = 0, currentItem: Int64? = nil, isFinished: Bool = false) {
        self.total = total
        self.done = done
        self.failed = failed
        self.currentItem = currentItem
        self.isFinished = isFinished
    }
}
