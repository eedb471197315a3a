/// What happened to the offline queue's items, by item id: the outcome of a replay reaches a
/// caller even if it restarted after enqueueing (subscribe with ``ClientOfflineQueue/events(buffer:)``).
public enum OfflineEvent: Sendable, Equatable {
    /// The write is stored durably.
    case enqueued(itemID: Int64)
    /// A replay got a 2xx (`status`); the item left the queue.
    case delivered(itemID: Int64, status: Int)
    /// A replay failed with an error that may pass; it will be replayed after its backoff.
    case retrying(itemID: Int64, attempt: Int, error: String)
    /// Out of attempts or refused for good: kept as a dead letter.
    case deadLettered(itemID: Int64, error: String)
    /// It waited past its expiry: kept as expired.
    case expired(itemID: Int64)
    /// A replay met a 409 or 412 (`status`) and the resolver left it to the app: parked.
    case conflict(itemID: Int64, status: Int)
    /// Its turn came while another session identity than the one it was queued under (or none)
    /// was signed in: it waits, unsent, until that identity signs in again
    /// (``OfflineItemState/waitingForUser``).
    case waitingForUser(itemID: Int64)
    /// A conflict was resolved: `serverWins` dropped the write (it left the queue); `clientWins`
    /// and `merge` queued it again.
    case conflictResolved(itemID: Int64, resolution: String)
    /// The app removed it (or cleared the queue).
    case removed(itemID: Int64)
    /// The database file was damaged: it was moved aside to `movedTo` (with its WAL), and a
    /// fresh one holds what could still be read of it. `salvaged` writes were copied with their
    /// ids and are replayed as before; `lost` could not be read back (`nil`: the damaged file no
    /// longer says how many writes it held, so some may be lost). Ids are never handed out
    /// again, even when nothing could be read: new ones go above every id given before.
    case recovered(salvaged: Int, lost: Int?, movedTo: String)
    /// The storage failed: the database could not be opened, or a write failed.
    case storageFailed(String)
}
