import Courier
import Foundation
import Logging
import PostgresNIO

/// The offline queue kept in a PostgreSQL table, shared by every replica of a service: each
/// replica's ``APIClient`` is configured with the same table
/// (`APIClient.Configuration.Offline.sharedStorage`), claims items under a lease with
/// `FOR UPDATE SKIP LOCKED`, and is woken by `LISTEN/NOTIFY` when another adds items.
///
/// It runs on a `PostgresClient` the caller owns and runs (`await client.run()` in a task or a
/// service group), as PostgresNIO asks: the client's pool reconnects, with backoff, after the
/// server restarts or a connection is lost, and every call made meanwhile fails with
/// ``NetworkError/storageFailed(_:)`` (nothing of it committed) rather than hanging or crashing.
///
/// The table and its index are made at first use. ``enqueue(_:options:now:on:logger:)`` adds
/// an item inside the caller's own transaction (the transactional outbox).
///
/// Give each client a storage made for it (`PostgresOfflineStorage(client:…)`; copies of one
/// value share its origin): a storage's ``wakeUps()`` skip the inserts made through it and its
/// copies (its client knows of them), outbox enqueues excepted.
public struct PostgresOfflineStorage: SharedOfflineStorage {
    /// The client the storage's queries run on.
    public let client: PostgresClient
    /// The table items are kept in.
    public let table: String
    /// How long a call may take before it fails with ``NetworkError/storageFailed(_:)``.
    public let operationTimeout: Duration
    /// The `LISTEN/NOTIFY` channel inserts are announced on: `<table>_added`.
    public var channel: String { table + "_added" }

    let logger: Logger
    /// Stamps this storage's inserts (their notification's payload), so that its own listener
    /// skips them: its client already knows of them, and would only count the table again.
    let origin = UUID().uuidString
    private let schema: PostgresSchema
    private let batcher = InsertBatcher()

    /// The storage in `table` (made at first use) of the database `client` reaches.
    ///
    /// - Parameters:
    ///   - client: a client the caller runs (`client.run()`) for as long as the storage is used.
    ///   - table: a plain SQL identifier (lowercase letters, digits, `_`; at most 50 characters),
    ///     so that it can be spelled in statements; the same for every replica sharing the queue.
    ///   - logger: where PostgresNIO logs the storage's queries; by default nowhere.
    ///   - operationTimeout: how long a call may wait (for a connection, for its statements)
    ///     before it fails with ``NetworkError/storageFailed(_:)``.
    public init(
        client: PostgresClient, table: String = "courier_offline_items", operationTimeout: Duration = .seconds(10), logger: Logger? = nil
    ) {
        precondition(Self.isPlainIdentifier(table), "PostgresOfflineStorage: table \"\(table)\" is not a plain SQL identifier")
        self.client = client
        self.table = table
        self.operationTimeout = operationTimeout
        self.logger = logger ?? Self.quietLogger
        self.schema = PostgresSchema(statements: OfflineItemRow.schema(table: table))
    }

    /// A logger that drops everything: the queries' own logging is opt-in.
    static let quietLogger = Logger(label: "courier.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    static func isPlainIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.unicodeScalars.count <= 50 else { return false }
        let lower = Unicode.Scalar("a")...Unicode.Scalar("z")
        let digits = Unicode.Scalar("0")...Unicode.Scalar("9")
        return (lower.contains(first) || first == "_")
            && name.unicodeScalars.allSatisfy { lower.contains($0) || digits.contains($0) || $0 == "_" }
    }

    /// Makes the table and index now rather than at the first call (each replica may, at start).
    /// Once they are made, returns without leasing a connection.
    public func prepare() async throws {
        if await schema.isMade { return }
        try await onConnection("prepare the table") { _ in }
    }

    // MARK: SharedOfflineStorage

    /// Stores `items` with multi-row `INSERT`s in one transaction, notifying the channel in the
    /// same transaction (a notification is delivered only if the insert commits). Calls made
    /// while another's batch is being written share the next batch's commit.
    public func insert(_ items: [OfflineItem]) async throws -> [Int64] {
        guard !items.isEmpty else { return [] }
        // Checked before batching, so that one caller's unstorable item fails that caller only.
        if items.contains(where: { $0.request.bodyStream != nil }) {
            throw NetworkError.storageFailed("a request with a streamed body cannot be stored in the offline queue")
        }
        return try await batcher.insert(items) { [self] batch in try await insertNow(batch) }
    }

    /// Inserts `items` now, in one transaction.
    private func insertNow(_ items: [OfflineItem]) async throws -> [Int64] {
        try await onConnection("insert") { connection in
            let statements = try items.chunked(Self.rowsPerInsert).map { try insertStatement($0, origin: origin) }
            if statements.count == 1 {
                return try await ids(connection.query(statements[0], logger: logger))
            }
            return try await connection.withTransaction(logger: logger) { connection in
                var ids: [Int64] = []
                for statement in statements { ids += try await self.ids(connection.query(statement, logger: logger)) }
                return ids
            }
        }
    }

    /// Claims, in one statement (one transaction), each ordering key's head when it is free.
    public func claim(owner: String, limit: Int, identity: String?, now: Date, lease: Duration) async throws -> [OfflineItem] {
        guard limit > 0 else { return [] }
        return try await onConnection("claim") { connection in
            var binds = PostgresBindings()
            binds.append(identity)
            binds.append(now.timeIntervalSince1970)
            binds.append(limit)
            binds.append(owner)
            binds.append(now.addingTimeInterval(Self.seconds(lease)).timeIntervalSince1970)
            // `heads`: each key's first waiting item this identity may send (items of another
            // identity neither count nor block). `ready`: those no live lease holds and whose
            // backoff is over. The locking scan repeats the lease test on the row itself, so a
            // replica whose snapshot predates another's claim re-checks the committed row and
            // skips it instead of claiming it twice.
            let sql = """
                WITH heads AS (
                    SELECT DISTINCT ON (ordering_key) id, lease_until, next_attempt_at FROM \(table)
                    WHERE state IN ('queued', 'retrying') AND (session_identity IS NULL OR session_identity = $1)
                    ORDER BY ordering_key, id),
                ready AS (
                    SELECT id FROM heads
                    WHERE (lease_until IS NULL OR lease_until <= $2) AND (next_attempt_at IS NULL OR next_attempt_at <= $2)),
                locked AS (
                    SELECT id FROM \(table)
                    WHERE id IN (SELECT id FROM ready) AND state IN ('queued', 'retrying')
                        AND (lease_until IS NULL OR lease_until <= $2)
                    ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED)
                UPDATE \(table) AS item SET lease_owner = $4, lease_until = $5 FROM locked WHERE item.id = locked.id
                RETURNING \(OfflineItemRow.itemColumnsPrefixed("item"))
                """
            var items: [OfflineItem] = []
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger) {
                items.append(try OfflineItemRow.item(row))
            }
            return items.sorted { $0.id < $1.id }
        }
    }

    /// Extends the leases `owner` still holds on `ids`.
    public func renew(owner: String, ids: [Int64], now: Date, lease: Duration) async throws -> [Int64] {
        guard !ids.isEmpty else { return [] }
        return try await onConnection("renew leases") { connection in
            var binds = PostgresBindings()
            binds.append(now.addingTimeInterval(Self.seconds(lease)).timeIntervalSince1970)
            binds.append(ids)
            binds.append(owner)
            let sql = "UPDATE \(table) SET lease_until = $1 WHERE id = ANY($2) AND lease_owner = $3 RETURNING id"
            let renewed = Set(try await self.ids(connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)))
            return ids.filter { !renewed.contains($0) }
        }
    }

    /// Writes back `updating` (only rows `owner` still leases, when there is an owner) and
    /// deletes `deleting`, in one transaction, releasing their leases.
    public func write(owner: String?, updating: [OfflineItem], deleting: [Int64]) async throws {
        guard !updating.isEmpty || !deleting.isEmpty else { return }
        try await onConnection("write") { connection in
            let statements = try updating.map { try updateStatement($0, owner: owner) } + deleteStatement(deleting)
            if statements.count == 1 {
                try await connection.query(statements[0], logger: logger)
                return
            }
            try await connection.withTransaction(logger: logger) { connection in
                for statement in statements { try await connection.query(statement, logger: logger) }
            }
        }
    }

    /// Every item, in id order.
    public func items() async throws -> [OfflineItem] {
        try await onConnection("read items") { connection in
            let sql = "SELECT \(OfflineItemRow.selectColumns) FROM \(table) ORDER BY id"
            var items: [OfflineItem] = []
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger) {
                items.append(try OfflineItemRow.item(row))
            }
            return items
        }
    }

    /// How many items are queued or retrying.
    public func waitingCount() async throws -> Int {
        try await onConnection("count waiting items") { connection in
            let sql = "SELECT count(*) FROM \(table) WHERE state IN ('queued', 'retrying')"
            for try await count in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(Int.self) {
                return count
            }
            return 0
        }
    }

    /// Yields once each time notifications of another client's inserts arrive on ``channel``
    /// (this storage's own are skipped; outbox enqueues always wake it) and once after each
    /// (re)connection of the listening connection (an insert may have been announced while it
    /// was gone). The listener runs until the stream's consumer stops iterating; after a lost
    /// connection it listens again after a delay growing to ``listenRetryCeiling``.
    public func wakeUps() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let listener = Task { [client, channel, logger, origin] in
            var delay = Self.listenRetryFloor
            while !Task.isCancelled {
                do {
                    try await client.withConnection { connection in
                        try await connection.listen(on: channel) { notifications in
                            continuation.yield()
                            delay = Self.listenRetryFloor
                            for try await notification in notifications where notification.payload != origin {
                                continuation.yield()
                            }
                        }
                    }
                } catch {
                    logger.debug("courier.postgres: LISTEN \(channel) ended: \(String(reflecting: error))")
                }
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, Self.listenRetryCeiling)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in listener.cancel() }
        return stream
    }

    // MARK: Statements

    /// Rows per `INSERT`: a statement takes at most 65,535 parameters.
    static let rowsPerInsert = 65_535 / OfflineItemRow.itemColumns.count
    static let listenRetryFloor = Duration.milliseconds(100)
    static let listenRetryCeiling = Duration.seconds(5)

    /// A multi-row insert of `items` that notifies ``channel`` with `origin` as the payload.
    func insertStatement(_ items: some Collection<OfflineItem>, origin: String) throws -> PostgresQuery {
        var binds = PostgresBindings(capacity: items.count * OfflineItemRow.itemColumns.count + 2)
        var rows: [String] = []
        rows.reserveCapacity(items.count)
        let width = OfflineItemRow.itemColumns.count
        for (index, item) in items.enumerated() {
            try OfflineItemRow.append(item, to: &binds)
            rows.append("(" + (1...width).map { "$\(index * width + $0)" }.joined(separator: ", ") + ")")
        }
        binds.append(channel)
        binds.append(origin)
        // pg_notify in the statement makes it part of the insert's transaction; the same
        // notification repeated in one transaction is delivered once.
        let sql = """
            INSERT INTO \(table) (\(OfflineItemRow.itemColumns.joined(separator: ", "))) VALUES \(rows.joined(separator: ", "))
            RETURNING id, pg_notify($\(items.count * width + 1), $\(items.count * width + 2))::text
            """
        return PostgresQuery(unsafeSQL: sql, binds: binds)
    }

    private func updateStatement(_ item: OfflineItem, owner: String?) throws -> PostgresQuery {
        var binds = PostgresBindings()
        try OfflineItemRow.append(item, to: &binds)
        let width = OfflineItemRow.itemColumns.count
        binds.append(item.id)
        let assignments = OfflineItemRow.itemColumns.enumerated().map { "\($1) = $\($0 + 1)" }.joined(separator: ", ")
        var sql = "UPDATE \(table) SET \(assignments), lease_owner = NULL, lease_until = NULL WHERE id = $\(width + 1)"
        if let owner {
            binds.append(owner)
            sql += " AND lease_owner = $\(width + 2)"
        }
        return PostgresQuery(unsafeSQL: sql, binds: binds)
    }

    private func deleteStatement(_ ids: [Int64]) -> [PostgresQuery] {
        guard !ids.isEmpty else { return [] }
        var binds = PostgresBindings()
        binds.append(ids)
        return [PostgresQuery(unsafeSQL: "DELETE FROM \(table) WHERE id = ANY($1)", binds: binds)]
    }

    private func ids(_ rows: PostgresRowSequence) async throws -> [Int64] {
        var ids: [Int64] = []
        for try await row in rows { ids.append(try row.makeRandomAccess()[0].decode(Int64.self)) }
        return ids
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    /// Runs `body` on a connection of the pool (once the table is made on it), as ``storage(_:_:onExpiry:)``
    /// does. If the time limit passes first, that connection is closed: a query waiting on a
    /// silent server would otherwise hold it as long as the connection lives, and enough such
    /// calls would leave the pool without a working connection after the server came back.
    func onConnection<Value: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> Value
    ) async throws -> Value {
        let leased = LeasedConnection()
        return try await storage(operation, { [client, schema] in
            try await client.withConnection { connection in
                leased.hold(connection)
                try await schema.ensure(on: connection)
                return try await body(connection)
            }
        }, onExpiry: { leased.close() })
    }

    /// Runs `body`, turning what the database threw into ``NetworkError/storageFailed(_:)``
    /// naming `operation` (cancellation and Courier's own errors pass as they are). A call that
    /// has not finished after ``operationTimeout`` fails then, whether or not it stops: while the
    /// server is unreachable, PostgresClient's pool keeps reconnecting and a call would otherwise
    /// wait for a connection for as long as the outage lasts, and a query whose connection went
    /// silent waits for its answer until the connection is closed.
    func storage<Value: Sendable>(
        _ operation: String, _ body: @escaping @Sendable () async throws -> Value, onExpiry: @escaping @Sendable () -> Void = {}
    ) async throws -> Value {
        do {
            return try await OperationDeadline.run(within: operationTimeout, body, onExpiry: onExpiry)
        } catch is OperationDeadline.Expired {
            throw NetworkError.storageFailed("PostgreSQL \(table): \(operation) timed out after \(operationTimeout) (server unreachable?)")
        } catch let error as NetworkError {
            throw error
        } catch let error as CancellationError {
            throw error
        } catch {
            throw NetworkError.storageFailed("PostgreSQL \(table): \(operation) failed: \(Self.reason(error))")
        }
    }

    /// What went wrong, without the query's parameters (they hold request bodies).
    static func reason(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            var reason = "\(error.code)"
            if let message = error.serverInfo?[.message] { reason += ": \(message)" }
            if let underlying = error.underlying { reason += " (\(underlying))" }
            return reason
        }
        if let error = error as? PostgresTransactionError {
            for inner in [error.beginError, error.closureError, error.commitError].compactMap({ $0 }) {
                return reason(inner)
            }
        }
        return String(describing: error)
    }
}
