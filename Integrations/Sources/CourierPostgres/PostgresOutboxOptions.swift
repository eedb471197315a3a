import Courier
import Foundation

/// How a write added with ``PostgresOfflineStorage/enqueue(_:options:now:on:logger:)`` is
/// replayed: what the client's own enqueue takes from the request's ``RequestOptions`` and the
/// offline configuration, given here because the outbox is written without a client.
public struct PostgresOutboxOptions: Sendable {
    /// Writes with the same key are replayed one at a time, in enqueue order, across replicas.
    public var orderingKey: String
    /// Sent as `Idempotency-Key` on every replay; `nil`: a new random key.
    public var idempotencyKey: String?
    /// Whether the replay gets the session's credentials (the item then waits for a signed-in
    /// session of ``sessionIdentity``, or any session when that is `nil`).
    public var requiresAuth: Bool
    /// The session identity the write belongs to, when it is sent with credentials.
    public var sessionIdentity: String?
    /// How long the write may wait before it expires (the client's default is 24 hours).
    public var expiry: Duration
    /// Each replay's attempt timeout; `nil`: the replaying client's.
    public var attemptTimeout: Duration?
    /// Each replay's deadline; `nil`: the replaying client's.
    public var deadline: Duration?

    /// Options for a write replayed without credentials, in the default order, within 24 hours.
    public init(
        orderingKey: String = OfflineItem.defaultOrderingKey, idempotencyKey: String? = nil, requiresAuth: Bool = false,
        sessionIdentity: String? = nil, expiry: Duration = .seconds(24 * 3600), attemptTimeout: Duration? = nil,
        deadline: Duration? = nil
    ) {
        self.orderingKey = orderingKey
        self.idempotencyKey = idempotencyKey
        self.requiresAuth = requiresAuth
        self.sessionIdentity = sessionIdentity
        self.expiry = expiry
        self.attemptTimeout = attemptTimeout
        self.deadline = deadline
    }
}
