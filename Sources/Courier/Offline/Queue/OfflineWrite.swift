/// A write to store in the offline queue, with what its replays need: whether it uses the
/// session's credentials and under which identity, and its own timeouts.
struct OfflineWrite: Sendable {
    /// The request (its `Authorization`, if any, is never stored).
    var request: HTTPRequest
    /// The request's ``RequestOptions/requiresAuth``.
    var requiresAuth: Bool
    /// The session identity whose credentials it is sent with (``OfflineItem/sessionIdentity``).
    var sessionIdentity: String? = nil
    /// The request's own attempt timeout and deadline (``OfflineItem/attemptTimeout``, ``OfflineItem/deadline``).
    var attemptTimeout: Duration? = nil
    var deadline: Duration? = nil
    /// Its own ordering key (``RequestOptions/orderingKey``); `nil`: the client's
    /// (``APIClient/Configuration/Offline/orderingKey``).
    var orderingKey: String? = nil
    /// It was sent under its key and got no answer: the server may still be applying it (a 409
    /// to its replay is then not a conflict).
    var keyMayBeInProgress = false
}
