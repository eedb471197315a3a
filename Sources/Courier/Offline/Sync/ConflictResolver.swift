import Foundation

/// Decides what happens to a replayed write the server refused with 409 Conflict or
/// 412 Precondition Failed: ``serverWins``, ``clientWins``, ``merge(_:)``, ``manual`` (parks it
/// for the app), or your own rule with ``init(_:)``.
public struct ConflictResolver: Sendable {
    private let decide: @Sendable (OfflineConflict) -> ConflictResolution

    /// A resolver that applies your rule to each conflict.
    public init(_ decide: @escaping @Sendable (OfflineConflict) -> ConflictResolution) {
        self.decide = decide
    }

    /// Drop the local write and keep the server's state (reported as
    /// ``OfflineEvent/conflictResolved(itemID:resolution:)``).
    public static let serverWins = ConflictResolver { _ in .serverWins }

    /// Send the local write again, with `If-Match` set to the server's current `ETag` when it
    /// sent one. After ``APIClient/Configuration/Offline/maxAttempts`` conflicts it is a dead letter.
    public static let clientWins = ConflictResolver { _ in .clientWins }

    /// Park the item (``OfflineItemState/conflict``, with the server's answer) and publish
    /// ``OfflineEvent/conflict(itemID:status:)``; the app settles it with
    /// ``ClientOfflineQueue/resolveConflict(_:with:)``.
    public static let manual = ConflictResolver { _ in .manual }

    /// Send the body `merge` makes of the local body and the server's body. A merge that throws
    /// parks the item as ``manual`` does: nothing is lost.
    public static func merge(_ merge: @escaping @Sendable (_ local: Data, _ server: Data) throws -> Data) -> ConflictResolver {
        ConflictResolver { conflict in
            guard let merged = try? merge(conflict.request.body ?? Data(), conflict.response.body) else { return .manual }
            return .merge(merged)
        }
    }

    /// The resolution for `conflict`.
    func resolution(for conflict: OfflineConflict) -> ConflictResolution {
        decide(conflict)
    }
}
