/// What a write does when there is no connection.
public enum OfflineBehavior: Sendable, Equatable {
    /// Fail with ``NetworkError/noConnection(underlying:)`` (the default).
    case fail
    /// Store it durably in the client's offline queue (``APIClient/Configuration/offline``) and
    /// fail with ``NetworkError/queued(itemID:)``; it is replayed, once, when connectivity
    /// returns. Applies to POST, PUT, PATCH and DELETE, sent while the connectivity monitor says
    /// offline or failing with `noConnection`. Without an offline queue it behaves as `fail`.
    case queueWhenOffline
}
