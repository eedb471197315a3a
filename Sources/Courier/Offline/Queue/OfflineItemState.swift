/// Where an item of the offline queue stands. Delivered items leave the queue (an
/// ``OfflineEvent/delivered(itemID:status:)`` says so); every other state is kept until the item
/// is delivered or removed: nothing is dropped silently.
public enum OfflineItemState: String, Sendable, Equatable, CaseIterable {
    /// Waiting for its turn (never sent, or interrupted by a lost connection).
    case queued
    /// Being replayed now (held in memory only: the stored item stays `queued`, so one in flight
    /// when the process died is replayed again with the same idempotency key).
    case sending
    /// Its last replay failed with an error that may pass (5xx, 429, a timeout); replayed again
    /// after its backoff (``OfflineItem/nextAttemptAt``).
    case retrying
    /// Out of attempts, or refused for good (a 4xx other than 409/412): kept as a dead letter,
    /// listable, retryable and removable.
    case dead
    /// A 409 or 412 the conflict resolver left to the app (``ConflictResolver/manual``):
    /// parked with the server's answer until ``ClientOfflineQueue/resolveConflict(_:with:)``.
    case conflict
    /// Queued under another session identity (``OfflineItem/sessionIdentity``) than the one
    /// signed in at its turn, or while signed out: kept, never sent with another user's
    /// credentials, and replayed in its turn once its identity signs in again. It does not hold
    /// back later writes, and expires as a waiting write does.
    case waitingForUser
    /// Not delivered before its expiry (``APIClient/Configuration/Offline/expiry``): kept,
    /// reported, retryable and removable.
    case expired

    /// Whether a drain replays the item (when it is its turn).
    var isWaiting: Bool { self == .queued || self == .retrying || self == .sending }
}
