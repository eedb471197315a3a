/// What became of a write sent with `client.offline.send` or `client.offline.perform`: sent
/// now, with its answer, or stored in the offline queue to be replayed when the connection is
/// back (its outcome then arrives as an ``OfflineEvent``). Neither is an error.
///
/// ```swift
/// switch try await client.offline.send(Endpoint<EmptyResponse>(path: "notes", method: .post, body: note)) {
/// case .sent: showSaved()
/// case .queued(let id): showPending(id)
/// }
/// ```
public enum OfflineDelivery<Value: Sendable>: Sendable {
    /// The write went out now; this is its answer.
    case sent(Value)
    /// The write was stored durably as item `itemID` (``ClientOfflineQueue/items()``), to be
    /// replayed in order when connectivity returns.
    case queued(itemID: Int64)

    /// The queued item's id; `nil` when the write was sent.
    public var queuedItemID: Int64? {
        if case .queued(let id) = self { return id }
        return nil
    }
}
