import Foundation

/// The cache's optional second tier: stored responses in a SQLite database (``SQLiteDatabase``),
/// bounded by bytes, least recently used dropped first, so that a restarted process still has
/// the last good answers (`networkFirst` serves them while offline). Owned by one ``Cache``
/// instance and used from its actor only.
final class PersistentCache: PersistentCacheStore {
    private let database: SQLiteDatabase
    /// The most bytes of entries kept (as ``CacheEntry/size`` counts them).
    let maxBytes: Int

    static let schema = """
        CREATE TABLE IF NOT EXISTS responses (
            url TEXT NOT NULL, identity TEXT NOT NULL, status INTEGER NOT NULL, headers BLOB NOT NULL,
            body BLOB NOT NULL, stored_at REAL NOT NULL, initial_age INTEGER NOT NULL, lifetime INTEGER NOT NULL,
            varying BLOB NOT NULL, size INTEGER NOT NULL, used_at REAL NOT NULL,
            PRIMARY KEY (url, identity));
        CREATE INDEX IF NOT EXISTS responses_by_use ON responses (used_at);
        """

    /// Opens the tier at `path`; a corrupt file is moved aside (see ``SQLiteDatabase/open(_:schema:)``),
    /// and where it went is returned.
    static func open(path: String, maxBytes: Int) throws -> (PersistentCache, movedAside: String?) {
        let opened = try SQLiteDatabase.open(path, schema: schema)
        return (PersistentCache(database: opened.database, maxBytes: maxBytes), opened.movedAside)
    }

    private init(database: SQLiteDatabase, maxBytes: Int) {
        self.database = database
        self.maxBytes = maxBytes
    }

    /// The entry under `key`, marked used at `now`; `nil` if none (or unreadable: then dropped).
    func entry(for key: CacheKey, now: Date) throws -> CacheEntry? {
        let rows = try database.query(
            "SELECT status, headers, body, stored_at, initial_age, lifetime, varying FROM responses WHERE url = ? AND identity = ?",
            [.text(key.url), .text(key.identity)]
        ) { row in
            (status: Int(row.integer(0)), headers: row.blob(1), body: row.blob(2), storedAt: row.real(3),
             initialAge: Int(row.integer(4)), lifetime: Int(row.integer(5)), varying: row.blob(6))
        }
        guard let row = rows.first else { return nil }
        guard let fields = try? JSONDecoder().decode([[String]].self, from: row.headers),
              let varying = try? JSONDecoder().decode([String: String].self, from: row.varying) else {
            try remove(key)
            return nil
        }
        var headers = HTTPHeaders()
        for field in fields where field.count == 2 { headers.add(name: field[0], value: field[1]) }
        try database.run("UPDATE responses SET used_at = ? WHERE url = ? AND identity = ?",
                         [.real(now.timeIntervalSince1970), .text(key.url), .text(key.identity)])
        return CacheEntry(
            response: HTTPResponse(status: row.status, headers: headers, body: row.body),
            storedAt: Date(timeIntervalSince1970: row.storedAt), initialAge: row.initialAge, lifetime: row.lifetime,
            control: CacheControl(headers), varying: varying)
    }

    /// Stores `entry` under `key` (replacing any), then drops the least recently used entries
    /// until the tier is within ``maxBytes``. An entry larger than that is not kept.
    func store(_ entry: CacheEntry, for key: CacheKey, now: Date) throws {
        let size = entry.size
        guard size <= maxBytes else { return try remove(key) }
        let headers = try JSONEncoder().encode(entry.response.headers.map { [$0.name, $0.value] })
        let varying = try JSONEncoder().encode(entry.varying)
        try database.execute("BEGIN IMMEDIATE")
        do {
            try database.run(
                """
                INSERT OR REPLACE INTO responses
                    (url, identity, status, headers, body, stored_at, initial_age, lifetime, varying, size, used_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [.text(key.url), .text(key.identity), .integer(Int64(entry.response.status)), .blob(headers),
                 .blob(entry.response.body), .real(entry.storedAt.timeIntervalSince1970), .integer(Int64(entry.initialAge)),
                 .integer(Int64(entry.lifetime)), .blob(varying), .integer(Int64(size)), .real(now.timeIntervalSince1970)])
            try trim()
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
    }

    /// Drops least recently used entries until the total is within ``maxBytes``.
    private func trim() throws {
        var excess = try bytes() - maxBytes
        guard excess > 0 else { return }
        let oldest = try database.query("SELECT rowid, size FROM responses ORDER BY used_at ASC", []) { ($0.integer(0), $0.integer(1)) }
        for (rowid, size) in oldest where excess > 0 {
            try database.run("DELETE FROM responses WHERE rowid = ?", [.integer(rowid)])
            excess -= Int(size)
        }
    }

    /// Bytes of entries held.
    func bytes() throws -> Int {
        Int(try database.query("SELECT COALESCE(SUM(size), 0) FROM responses", []) { $0.integer(0) }.first ?? 0)
    }

    func remove(_ key: CacheKey) throws {
        try database.run("DELETE FROM responses WHERE url = ? AND identity = ?", [.text(key.url), .text(key.identity)])
    }

    /// Drops every identity's entries for `url`, or, with `below`, for `url` and the URLs under it.
    func remove(url: String, below: Bool = false) throws {
        if below {
            try database.run(
                "DELETE FROM responses WHERE url = ? OR substr(url, 1, ?) = ? OR substr(url, 1, ?) = ?",
                [.text(url), .integer(Int64(url.utf8.count + 1)), .text(url + "/"), .integer(Int64(url.utf8.count + 1)), .text(url + "?")])
        } else {
            try database.run("DELETE FROM responses WHERE url = ?", [.text(url)])
        }
    }

    /// Drops `identity`'s entries, its cookie partitions included (a range of the text's
    /// bytes: the partitions' identities start with the identity and the mark).
    func remove(identity: String) throws {
        let partitions = identity + CacheKey.cookieMark
        try database.run(
            "DELETE FROM responses WHERE identity = ? OR (identity >= ? AND identity < ?)",
            [.text(identity), .text(partitions), .text(identity + "\u{1F}cookie;")])
    }

    /// Drops the entries of requests that carried cookies.
    func removeCookiePartitions() throws {
        try database.run("DELETE FROM responses WHERE instr(identity, ?) > 0", [.text(CacheKey.cookieMark)])
    }

    /// Drops every entry stored for a session (identity other than "").
    func removePrivate() throws {
        try database.run("DELETE FROM responses WHERE identity <> ''", [])
    }

    func removeAll() throws {
        try database.run("DELETE FROM responses", [])
    }
}
