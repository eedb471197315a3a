import Foundation

/// How a conflicting write (a replay answered 409 or 412) is settled.
public enum ConflictResolution: Sendable, Equatable {
    /// The server's state stands: the local write is dropped (and reported).
    case serverWins
    /// The local write is sent again, with `If-Match` set to the server's current `ETag` when
    /// the conflicting answer carried one.
    case clientWins
    /// This body (the local and the server's versions merged) is sent instead.
    case merge(Data)
    /// Left to the app: the item is parked in ``OfflineItemState/conflict`` until
    /// ``ClientOfflineQueue/resolveConflict(_:with:)``.
    case manual
}
