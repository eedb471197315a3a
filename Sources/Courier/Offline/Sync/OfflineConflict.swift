/// A replayed write the server refused with 409 or 412, as a ``ConflictResolver`` sees it.
public struct OfflineConflict: Sendable {
    /// The queued item's id.
    public let itemID: Int64
    /// The local write, as it was replayed (its `body` is the local version).
    public let request: HTTPRequest
    /// The server's answer: its status, its `ETag` if it sent one, and its body (usually the
    /// server's current version).
    public let response: HTTPResponse
}
