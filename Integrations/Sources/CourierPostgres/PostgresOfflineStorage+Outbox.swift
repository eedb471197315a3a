import Courier
import Foundation
import Logging
import PostgresNIO

extension PostgresOfflineStorage {
    /// Adds `request` to the queue inside the caller's transaction on `connection` (the
    /// transactional outbox): the item and the caller's own rows commit or roll back together,
    /// and the replicas are notified only if it commits. Call it inside
    /// `client.withTransaction { connection in … }` (or between your own `BEGIN` and `COMMIT`).
    ///
    /// The request is stored as the client's enqueue stores it: without its `Authorization`
    /// header (the session's token is added at replay), its body whole.
    ///
    /// - Returns: the item's id (``OfflineDelivery/queued(itemID:)``'s number).
    /// - Throws: ``NetworkError/storageFailed(_:)`` when the statement failed (the caller's
    ///   transaction is then aborted, as after any failed statement).
    @discardableResult
    public func enqueue(
        _ request: HTTPRequest, options: PostgresOutboxOptions = PostgresOutboxOptions(), now: Date = Date(),
        on connection: PostgresConnection, logger: Logger? = nil
    ) async throws -> Int64 {
        let item = Self.item(request, options: options, now: now)
        return try await storage("enqueue in the caller's transaction") {
            // The table is made on a connection of the storage's own client, outside the
            // caller's transaction, so that rolling that back never undoes it.
            try await prepare()
            // No origin: the storage's own client does not know of this item, so it is woken too.
            let statement = try insertStatement(CollectionOfOne(item), origin: "")
            for try await row in try await connection.query(statement, logger: logger ?? self.logger) {
                return try row.makeRandomAccess()[0].decode(Int64.self)
            }
            throw NetworkError.storageFailed("PostgreSQL \(table): the insert returned no id")
        }
    }

    /// Adds `request` to the queue in a transaction of its own, as a client's
    /// `offline.enqueue` does: committed when this returns.
    @discardableResult
    public func enqueue(_ request: HTTPRequest, options: PostgresOutboxOptions = PostgresOutboxOptions(), now: Date = Date()) async throws -> Int64 {
        try await insert([Self.item(request, options: options, now: now)])[0]
    }

    static func item(_ request: HTTPRequest, options: PostgresOutboxOptions, now: Date) -> OfflineItem {
        OfflineItem(
            id: 0, request: request, requiresAuth: options.requiresAuth,
            sessionIdentity: options.requiresAuth ? options.sessionIdentity : nil,
            attemptTimeout: options.attemptTimeout ?? request.timeout, deadline: options.deadline,
            idempotencyKey: options.idempotencyKey ?? UUID().uuidString, createdAt: now,
            expiresAt: now.addingTimeInterval(seconds(options.expiry)), attempts: 0, lastError: nil, state: .queued,
            nextAttemptAt: nil, serverResponse: nil, orderingKey: options.orderingKey
        )
    }
}
