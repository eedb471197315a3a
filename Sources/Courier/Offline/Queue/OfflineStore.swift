import Foundation

/// The offline queue's durable storage: one row per item in a SQLite database
/// (``SQLiteDatabase``: WAL, `synchronous=FULL`), so a write that was stored survives the
/// process being killed. Owned by one ``OfflineQueue`` instance and used from its actor only.
final class OfflineStore: OfflineItemStore {
    private let database: SQLiteDatabase
    /// The id file beside the database (`nil` in memory), and the highest id it reserves.
    private let reservation: IDReservation?
    private var reservedID: Int64

    /// The table, and exclusive locking: one queue owns the file (a second client on the same
    /// file gets `storageFailed` instead of replaying the same writes), and a transaction then
    /// takes no file locks of its own.
    static let schema = """
        PRAGMA locking_mode=EXCLUSIVE;
        CREATE TABLE IF NOT EXISTS items (
            id INTEGER PRIMARY KEY AUTOINCREMENT, method TEXT NOT NULL, url TEXT NOT NULL, headers BLOB NOT NULL,
            body BLOB, requires_auth INTEGER NOT NULL, idempotency_key TEXT NOT NULL, created_at REAL NOT NULL,
            expires_at REAL NOT NULL, attempts INTEGER NOT NULL, last_error TEXT, state TEXT NOT NULL,
            next_attempt_at REAL, server_status INTEGER, server_headers BLOB, server_body BLOB,
            session_identity TEXT, attempt_timeout_ns INTEGER, deadline_ns INTEGER, ordering_key TEXT);
        """

    /// Columns added after the first version, with their types: a file without them gets them
    /// at open (`NULL` in the rows it holds: no identity, the client's timeouts, the default
    /// ordering key).
    static let addedColumns = [
        (name: "session_identity", type: "TEXT"), (name: "attempt_timeout_ns", type: "INTEGER"), (name: "deadline_ns", type: "INTEGER"),
        (name: "ordering_key", type: "TEXT"),
    ]

    /// What opening found: the store, its items, the largest id ever given to an item (new ones
    /// go above it), and what recovering a damaged file did, if it had to.
    struct Opened {
        let store: any OfflineItemStore
        let items: [OfflineItem]
        let lastID: Int64
        let recovery: OfflineStoreRecovery?
    }

    /// Ids are reserved this many at a time in the id file (``IDReservation``): one extra
    /// `fsync` per this many enqueues.
    static let idBlock: Int64 = 1024

    /// Opens the store at `path` (`:memory:` for one that does not outlive the process). A
    /// damaged file (it fails its check, or its rows do not read back) is moved aside, what can
    /// still be read of it is copied into a fresh one (``salvage(from:into:reserved:)``), and new
    /// ids go above every id it or the id file (`<path>.ids`) knew of.
    static func open(path: String) throws -> Opened {
        let reservation = path == ":memory:" ? nil : IDReservation(path: path + ".ids")
        let reserved = reservation?.read() ?? 0
        do {
            let opened = try SQLiteDatabase.open(path, schema: schema)
            if let aside = opened.movedAside {
                return try recovered(opened.database, from: aside, reservation: reservation, reserved: reserved)
            }
            do {
                return try loaded(opened.database, reservation: reservation, reserved: reserved, recovery: nil)
            } catch let failure as SQLiteDatabase.Failure where failure.isCorruption {
                // It passed its check, but its rows do not read back: recovered alike, once
                // this connection is closed (at the end of this scope).
            }
        }
        let aside = try SQLiteDatabase.moveAside(path)
        let fresh = try SQLiteDatabase.open(path, schema: schema).database
        return try recovered(fresh, from: aside, reservation: reservation, reserved: reserved)
    }

    /// `database`, fresh, after `damaged` was moved aside: what can be read of that is copied in.
    private static func recovered(
        _ database: SQLiteDatabase, from damaged: String, reservation: IDReservation?, reserved: Int64
    ) throws -> Opened {
        let salvage = try salvage(from: damaged, into: database, reserved: reserved)
        let recovery = OfflineStoreRecovery(salvaged: salvage.salvaged, lost: salvage.lost, movedTo: damaged)
        return try loaded(database, reservation: reservation, reserved: reserved, recovery: recovery)
    }

    private static func loaded(
        _ database: SQLiteDatabase, reservation: IDReservation?, reserved: Int64, recovery: OfflineStoreRecovery?
    ) throws -> Opened {
        try migrate(database)
        let store = OfflineStore(database: database, reservation: reservation, reserved: reserved)
        let items = try store.all()
        let lastID = max(try store.lastID(), items.last?.id ?? 0)
        // A file written before the id file existed: reserve now, so that ids survive the
        // first damage already.
        if lastID > reserved { try? store.reserve(through: lastID) }
        return Opened(store: store, items: items, lastID: lastID, recovery: recovery)
    }

    /// Adds the columns a file written by an earlier version lacks (``addedColumns``).
    private static func migrate(_ database: SQLiteDatabase) throws {
        let present = Set(try database.query("PRAGMA table_info(items)", []) { $0.text(1) })
        for column in addedColumns where !present.contains(column.name) {
            try database.execute("ALTER TABLE items ADD COLUMN \(column.name) \(column.type)")
        }
    }

    private init(database: SQLiteDatabase, reservation: IDReservation?, reserved: Int64) {
        self.database = database
        self.reservation = reservation
        reservedID = reserved
    }

    /// Records in the id file that ids up to `id`, and a block beyond, may be handed out.
    private func reserve(through id: Int64) throws {
        let ceiling = id.addingReportingOverflow(Self.idBlock).overflow ? Int64.max : id + Self.idBlock
        try reservation?.store(ceiling)
        reservedID = ceiling
    }

    /// Every item, in id order. A row that cannot be read back (its headers are not the field
    /// lines this store writes, its URL or state unreadable) comes back as a dead letter saying
    /// so, not dropped.
    func all() throws -> [OfflineItem] {
        try database.query(
            """
            SELECT id, method, url, headers, body, requires_auth, idempotency_key, created_at, expires_at, attempts,
                   last_error, state, next_attempt_at, server_status, server_headers, server_body, session_identity,
                   attempt_timeout_ns, deadline_ns, ordering_key
            FROM items ORDER BY id
            """, []
        ) { row in
            var unreadable: String?
            let url = URL(string: row.text(2))
            if url == nil { unreadable = "stored URL is not a URL" }
            var request = HTTPRequest(method: HTTPMethod(rawValue: row.text(1)), url: url ?? URL(string: "http://invalid")!)
            if let headers = Self.headers(row.blob(3)) { request.headers = headers } else { unreadable = "stored headers are unreadable" }
            request.body = row.isNull(4) ? nil : row.blob(4)
            var response: HTTPResponse?
            if !row.isNull(13) {
                response = HTTPResponse(status: Int(row.integer(13)), headers: Self.headers(row.blob(14)) ?? [:], body: row.blob(15))
            }
            let state = OfflineItemState(rawValue: row.text(11))
            if state == nil { unreadable = "stored state is unknown" }
            return OfflineItem(
                id: row.integer(0), request: request, requiresAuth: row.integer(5) != 0,
                sessionIdentity: row.isNull(16) ? nil : row.text(16),
                attemptTimeout: row.isNull(17) ? nil : .nanoseconds(row.integer(17)),
                deadline: row.isNull(18) ? nil : .nanoseconds(row.integer(18)), idempotencyKey: row.text(6),
                createdAt: Date(timeIntervalSince1970: row.real(7)), expiresAt: Date(timeIntervalSince1970: row.real(8)),
                attempts: Int(row.integer(9)), lastError: unreadable ?? (row.isNull(10) ? nil : row.text(10)),
                state: unreadable == nil ? state ?? .dead : .dead,
                nextAttemptAt: row.isNull(12) ? nil : Date(timeIntervalSince1970: row.real(12)), serverResponse: response,
                orderingKey: row.isNull(19) ? OfflineItem.defaultOrderingKey : row.text(19))
        }
    }

    /// The largest id ever given to an item (0 if none): ids are never reused, even after the
    /// item with the largest one was deleted.
    func lastID() throws -> Int64 {
        try database.query("SELECT seq FROM sqlite_sequence WHERE name = 'items'", []) { $0.integer(0) }.first ?? 0
    }

    /// Stores new items (their ids chosen by the caller, above ``lastID()``) in one transaction:
    /// one `fsync` for all of them (group commit). When it returns, they are durable.
    func insert(_ items: [OfflineItem]) throws {
        // The id file first: an id is reserved there before it can be handed out.
        if let highest = items.map(\.id).max(), highest > reservedID { try reserve(through: highest) }
        try database.transaction {
            for item in items {
                try database.run(
                    """
                    INSERT INTO items (method, url, headers, body, requires_auth, idempotency_key, created_at, expires_at,
                                       attempts, last_error, state, next_attempt_at, server_status, server_headers,
                                       server_body, session_identity, attempt_timeout_ns, deadline_ns, ordering_key, id)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, Self.columns(of: item) + [.integer(item.id)])
            }
        }
    }

    /// Writes `items`' current values in one transaction.
    func update(_ items: [OfflineItem]) throws {
        try write(updating: items, deleting: [])
    }

    /// Removes the items with these ids, in one transaction.
    func delete(_ ids: [Int64]) throws {
        try write(updating: [], deleting: ids)
    }

    /// Writes `updating`'s current values and removes the items with the ids in `deleting`, in
    /// one transaction (one `fsync`; none when there is nothing to write).
    func write(updating: [OfflineItem], deleting: [Int64]) throws {
        guard !updating.isEmpty || !deleting.isEmpty else { return }
        try database.transaction {
            for item in updating {
                try database.run(
                    """
                    UPDATE items SET method = ?, url = ?, headers = ?, body = ?, requires_auth = ?, idempotency_key = ?,
                                     created_at = ?, expires_at = ?, attempts = ?, last_error = ?, state = ?,
                                     next_attempt_at = ?, server_status = ?, server_headers = ?, server_body = ?,
                                     session_identity = ?, attempt_timeout_ns = ?, deadline_ns = ?, ordering_key = ?
                    WHERE id = ?
                    """, Self.columns(of: item) + [.integer(item.id)])
            }
            for id in deleting { try database.run("DELETE FROM items WHERE id = ?", [.integer(id)]) }
        }
    }

    private static func columns(of item: OfflineItem) -> [SQLiteDatabase.Value] {
        let request = item.request
        return [
            .text(request.method.rawValue), .text(request.url.absoluteString), .blob(encode(request.headers)),
            request.body.map { .blob($0) } ?? .null, .integer(item.requiresAuth ? 1 : 0), .text(item.idempotencyKey),
            .real(item.createdAt.timeIntervalSince1970), .real(item.expiresAt.timeIntervalSince1970),
            .integer(Int64(item.attempts)), item.lastError.map { .text($0) } ?? .null, .text(item.state.rawValue),
            item.nextAttemptAt.map { .real($0.timeIntervalSince1970) } ?? .null,
            item.serverResponse.map { .integer(Int64($0.status)) } ?? .null,
            item.serverResponse.map { .blob(encode($0.headers)) } ?? .null,
            item.serverResponse.map { .blob($0.body) } ?? .null,
            item.sessionIdentity.map { .text($0) } ?? .null,
            item.attemptTimeout.map { .integer(nanoseconds($0)) } ?? .null, item.deadline.map { .integer(nanoseconds($0)) } ?? .null,
            .text(item.orderingKey),
        ]
    }

    /// `duration` in whole nanoseconds, as the timeout columns hold it (capped at `Int64.max`).
    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? Int64.min : Int64.max }
        let (total, overflowAgain) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflowAgain ? Int64.max : total
    }

    /// Header fields as HTTP/1.1 writes them, `name: value` lines ended by CR LF (a stored
    /// request's fields were validated to hold no CR or LF).
    private static func encode(_ headers: HTTPHeaders) -> Data {
        var text = ""
        for field in headers { text += field.name + ": " + field.value + "\r\n" }
        return Data(text.utf8)
    }

    /// The fields `encode` wrote; `nil` if `data` is not that.
    private static func headers(_ data: Data) -> HTTPHeaders? {
        guard let text = String(data: data, encoding: .utf8) else { return nil }
        var headers = HTTPHeaders()
        for line in text.split(separator: "\r\n", omittingEmptySubsequences: true) {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let value = line[line.index(after: colon)...].drop { $0 == " " }
            headers.add(name: String(line[..<colon]), value: String(value))
        }
        return headers
    }
}
