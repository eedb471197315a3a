import Courier
import Foundation
import PostgresNIO

/// How an ``OfflineItem`` is kept in a row of the queue's table: the columns, in the order the
/// queries name them, and the conversions both ways. Times are seconds since 1970 as `float8`,
/// as `Date` holds them, so a lease compares exactly with the `now` the queue passes.
enum OfflineItemRow {
    /// The columns an item writes (everything but `id` and the lease).
    static let itemColumns = [
        "ordering_key", "method", "url", "headers", "body", "requires_auth", "session_identity", "attempt_timeout_ns",
        "deadline_ns", "idempotency_key", "created_at", "expires_at", "attempts", "last_error", "state",
        "next_attempt_at", "server_status", "server_headers", "server_body",
    ]

    /// The columns a read returns, `id` first.
    static let selectColumns = (["id"] + itemColumns).joined(separator: ", ")

    /// The columns a read returns, `id` first, each prefixed with `alias.`.
    static func itemColumnsPrefixed(_ alias: String) -> String {
        (["id"] + itemColumns).map { "\(alias).\($0)" }.joined(separator: ", ")
    }

    /// The table and its index, made at first use (``PostgresSchema``).
    static func schema(table: String) -> [String] {
        [
            """
            CREATE TABLE IF NOT EXISTS \(table) (
                id BIGSERIAL PRIMARY KEY, ordering_key TEXT NOT NULL, method TEXT NOT NULL, url TEXT NOT NULL,
                headers TEXT NOT NULL, body BYTEA, requires_auth BOOLEAN NOT NULL, session_identity TEXT,
                attempt_timeout_ns BIGINT, deadline_ns BIGINT, idempotency_key TEXT NOT NULL,
                created_at DOUBLE PRECISION NOT NULL, expires_at DOUBLE PRECISION NOT NULL, attempts INTEGER NOT NULL,
                last_error TEXT, state TEXT NOT NULL, next_attempt_at DOUBLE PRECISION, server_status INTEGER,
                server_headers TEXT, server_body BYTEA, lease_owner TEXT, lease_until DOUBLE PRECISION)
            """,
            // A claim looks only at waiting rows, per ordering key in id order: this partial
            // index holds exactly those, so finding each key's head never reads delivered or
            // dead rows.
            """
            CREATE INDEX IF NOT EXISTS \(table)_waiting ON \(table) (ordering_key, id)
                WHERE state IN ('queued', 'retrying')
            """,
        ]
    }

    /// Appends `item`'s values in ``itemColumns`` order.
    static func append(_ item: OfflineItem, to binds: inout PostgresBindings) throws {
        var request = item.request
        if request.bodyStream != nil {
            throw NetworkError.storageFailed("a request with a streamed body cannot be stored in the offline queue")
        }
        request.headers.remove(name: "Authorization")
        binds.append(item.orderingKey)
        binds.append(request.method.rawValue)
        binds.append(request.url.absoluteString)
        binds.append(encode(request.headers))
        try binds.append(request.body)
        binds.append(item.requiresAuth)
        binds.append(item.sessionIdentity)
        binds.append(item.attemptTimeout.map(nanoseconds))
        binds.append(item.deadline.map(nanoseconds))
        binds.append(item.idempotencyKey)
        binds.append(item.createdAt.timeIntervalSince1970)
        binds.append(item.expiresAt.timeIntervalSince1970)
        binds.append(item.attempts)
        binds.append(item.lastError)
        binds.append(item.state.rawValue)
        binds.append(item.nextAttemptAt?.timeIntervalSince1970)
        binds.append(item.serverResponse?.status)
        binds.append(item.serverResponse.map { encode($0.headers) })
        try binds.append(item.serverResponse?.body)
    }

    /// The item a row read with ``selectColumns`` holds.
    static func item(_ row: PostgresRow) throws -> OfflineItem {
        let cells = row.makeRandomAccess()
        let id = try cells[0].decode(Int64.self)
        let urlText = try cells[3].decode(String.self)
        guard let url = URL(string: urlText) else {
            throw NetworkError.storageFailed("PostgreSQL offline item \(id): its URL is unreadable")
        }
        let methodText = try cells[2].decode(String.self)
        let stateText = try cells[15].decode(String.self)
        guard let state = OfflineItemState(rawValue: stateText) else {
            throw NetworkError.storageFailed("PostgreSQL offline item \(id): unknown state \(stateText)")
        }
        var request = HTTPRequest(method: HTTPMethod(rawValue: methodText), url: url)
        request.headers = decode(try cells[4].decode(String.self))
        request.body = try cells[5].decode(Data?.self)
        var response: HTTPResponse?
        if let status = try cells[17].decode(Int?.self) {
            response = HTTPResponse(
                status: status, headers: decode(try cells[18].decode(String?.self) ?? ""),
                body: try cells[19].decode(Data?.self) ?? Data()
            )
        }
        return OfflineItem(
            id: id, request: request, requiresAuth: try cells[6].decode(Bool.self),
            sessionIdentity: try cells[7].decode(String?.self),
            attemptTimeout: try cells[8].decode(Int64?.self).map { .nanoseconds($0) },
            deadline: try cells[9].decode(Int64?.self).map { .nanoseconds($0) },
            idempotencyKey: try cells[10].decode(String.self),
            createdAt: Date(timeIntervalSince1970: try cells[11].decode(Double.self)),
            expiresAt: Date(timeIntervalSince1970: try cells[12].decode(Double.self)),
            attempts: try cells[13].decode(Int.self), lastError: try cells[14].decode(String?.self), state: state,
            nextAttemptAt: try cells[16].decode(Double?.self).map { Date(timeIntervalSince1970: $0) },
            serverResponse: response, orderingKey: try cells[1].decode(String.self)
        )
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// Header fields as an HTTP/1.1 header block (`Name: value` lines), their order kept.
    private static func encode(_ headers: HTTPHeaders) -> String {
        var text = ""
        for field in headers { text += field.name + ": " + field.value + "\r\n" }
        return text
    }

    private static func decode(_ text: String) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for line in text.split(separator: "\r\n", omittingEmptySubsequences: true) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].drop(while: { $0 == " " })
            headers.add(name: String(line[..<colon]), value: String(value))
        }
        return headers
    }
}
