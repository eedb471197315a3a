import Foundation

/// A write stored in the offline queue, as ``ClientOfflineQueue/items()`` lists it.
public struct OfflineItem: Sendable, Identifiable {
    /// The item's number: increasing in enqueue order, never reused. ``OfflineDelivery/queued(itemID:)``
    /// and every ``OfflineEvent`` carry it.
    public let id: Int64
    /// The request as it will be replayed: method, URL, headers (never `Authorization`: the
    /// session's current token is added at replay), body.
    public internal(set) var request: HTTPRequest
    /// Whether the replay gets credentials from the auth interceptor (the request's
    /// ``RequestOptions/requiresAuth``).
    public let requiresAuth: Bool
    /// The session identity (``Tokens/identity``) it was queued under, when it is sent with the
    /// session's credentials: it is replayed only while the session has this identity, and waits
    /// as ``OfflineItemState/waitingForUser`` while another (or none) is signed in. `nil`
    /// (queued without a session, to a public path, or by an earlier version): replayed with
    /// whichever session is signed in then.
    public internal(set) var sessionIdentity: String? = nil
    /// The request's own attempt timeout (``RequestOptions/attemptTimeout``, else
    /// ``HTTPRequest/timeout``), used by each replay; `nil`: the client's.
    public internal(set) var attemptTimeout: Duration? = nil
    /// The request's own deadline (``RequestOptions/deadline``), applied to each replay (it is a
    /// duration, not a date); `nil`: the client's.
    public internal(set) var deadline: Duration? = nil
    /// Sent as `Idempotency-Key` on every replay, so that a server that saw an earlier replay
    /// (the process died before it learnt the outcome) does not apply the write twice. A conflict
    /// resolution that changes the write gives it a new key.
    public internal(set) var idempotencyKey: String
    /// When the write was enqueued.
    public let createdAt: Date
    /// When the item expires if it is still waiting (``OfflineItemState/expired``).
    public internal(set) var expiresAt: Date
    /// Replays that ended in a verdict (a failure or a conflict); a lost connection does not count.
    public internal(set) var attempts: Int
    /// Why the last replay did not deliver it, if it did not.
    public internal(set) var lastError: String?
    /// Where it stands.
    public internal(set) var state: OfflineItemState
    /// Not replayed before this time (after a retryable failure: its backoff, or the longer
    /// wait a 429 or 503 asked for with `Retry-After`, up to ``expiresAt``).
    public internal(set) var nextAttemptAt: Date?
    /// The server's answer to a conflicting replay (409 or 412): status, headers (`ETag`), body.
    public internal(set) var serverResponse: HTTPResponse?
    /// Items with the same key are replayed one at a time, in enqueue order, by whichever
    /// client's turn it is; items with different keys may go in parallel (on a
    /// ``SharedOfflineStorage``; a client's own SQLite queue replays everything in one order).
    /// Default ``defaultOrderingKey``: one order for all of a client's writes.
    public internal(set) var orderingKey: String = OfflineItem.defaultOrderingKey
    /// The last send of ``idempotencyKey`` got no answer (cut or stopped mid-exchange, or timed
    /// out): the server may still be processing it, and answers a replay meanwhile 409 (what the
    /// IETF Idempotency-Key draft prescribes), which is then no conflict. In memory only: every
    /// waiting item loaded from disk is marked.
    var keyMayBeInProgress = false
}

extension OfflineItem {
    /// The ordering key of writes queued without one of their own.
    public static let defaultOrderingKey = "default"

    /// An item as a ``SharedOfflineStorage`` reads it back from its rows.
    public init(
        id: Int64, request: HTTPRequest, requiresAuth: Bool, sessionIdentity: String?, attemptTimeout: Duration?,
        deadline: Duration?, idempotencyKey: String, createdAt: Date, expiresAt: Date, attempts: Int, lastError: String?,
        state: OfflineItemState, nextAttemptAt: Date?, serverResponse: HTTPResponse?, orderingKey: String
    ) {
        self.id = id
        self.request = request
        self.requiresAuth = requiresAuth
        self.sessionIdentity = sessionIdentity
        self.attemptTimeout = attemptTimeout
        self.deadline = deadline
        self.idempotencyKey = idempotencyKey
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.attempts = attempts
        self.lastError = lastError
        self.state = state
        self.nextAttemptAt = nextAttemptAt
        self.serverResponse = serverResponse
        self.orderingKey = orderingKey
    }
}
