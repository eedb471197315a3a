import Foundation

/// The storage file of a ``CookieStore``: a SQLite database (``SQLiteDatabase``) read once,
/// before the store is first used, and written with what changed since, on a thread of its own
/// (``ThreadExecutor``): an `fsync` or another process's lock on the file never holds a thread
/// of the cooperative pool.
///
/// Writes take the jar's changes on this actor, one write at a time, so the file sees them in
/// the order the jar made them, whichever caller asked first. A write that fails gives its
/// changes back to the jar, to be written with the next one.
actor CookieFile {
    static let schema = """
        CREATE TABLE IF NOT EXISTS cookies (
            name TEXT NOT NULL, domain TEXT NOT NULL, path TEXT NOT NULL, value TEXT NOT NULL,
            host_only INTEGER NOT NULL, secure INTEGER NOT NULL, http_only INTEGER NOT NULL, same_site TEXT,
            expires REAL, created REAL NOT NULL, accessed REAL NOT NULL,
            PRIMARY KEY (name, domain, path));
        """

    private let executor = ThreadExecutor(name: "courier.cookies")
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    let path: String
    private let state: Locked<CookieStore.State>
    private let clock: any TimeSource
    private var database: SQLiteDatabase?

    init(path: String, state: Locked<CookieStore.State>, clock: any TimeSource) {
        self.path = path
        self.state = state
        self.clock = clock
    }

    /// Runs on the executor's thread, so that the database is closed (a WAL checkpoint, an
    /// `fsync`) there too.
    isolated deinit {}

    /// Puts the file's cookies in the jar, once: expired ones, and session cookies unless the
    /// jar saves them, are deleted instead. A file that cannot be read leaves the jar empty
    /// (memory only until a write manages to open it).
    func load() {
        guard !state.withLock({ $0.loaded }) else { return }
        let now = clock.currentDate
        let savesSessionCookies = state.withLock { $0.jar.savesSessionCookies }
        let cookies = (try? read(now: now, savesSessionCookies: savesSessionCookies)) ?? []
        state.withLock { state in
            state.jar.load(cookies, now: now)
            state.loaded = true
        }
    }

    /// Writes what changed in the jar since the last write, in one transaction.
    func flush() throws(NetworkError) {
        load()
        do {
            let database = try opened()
            let unsaved = state.withLock { $0.jar.takeUnsaved() }
            guard !unsaved.isEmpty else { return }
            do {
                try database.transaction { try write(unsaved, to: database) }
            } catch {
                state.withLock { $0.jar.restore(unsaved) }
                throw error
            }
        } catch {
            // A connection that can no longer be trusted is opened again next time.
            if let failure = error as? SQLiteDatabase.Failure, failure.isUnusable { database = nil }
            throw .storageFailed("the cookie file \(path): \(error)")
        }
    }

    /// The open database, opening it if needed. A file found corrupt when opened after the
    /// load was replaced by an empty one: every cookie is written again.
    private func opened() throws -> SQLiteDatabase {
        if let database { return database }
        let opened = try SQLiteDatabase.open(path, schema: Self.schema)
        database = opened.database
        if opened.movedAside != nil { state.withLock { $0.jar.markAllUnsaved() } }
        return opened.database
    }

    private func read(now: Date, savesSessionCookies: Bool) throws -> [Cookie] {
        let database = try opened()
        try database.run("DELETE FROM cookies WHERE expires IS NOT NULL AND expires <= ?", [.real(now.timeIntervalSince1970)])
        if !savesSessionCookies { try database.run("DELETE FROM cookies WHERE expires IS NULL", []) }
        return try database.query(
            "SELECT name, domain, path, value, host_only, secure, http_only, same_site, expires, created, accessed FROM cookies", []
        ) { row in
            var cookie = Cookie(
                name: row.text(0), value: row.text(3), domain: row.text(1), path: row.text(2),
                expiresAt: row.isNull(8) ? nil : Date(timeIntervalSince1970: row.real(8)),
                isSecure: row.integer(5) != 0, isHTTPOnly: row.integer(6) != 0,
                sameSite: row.isNull(7) ? nil : Cookie.SameSite(rawValue: row.text(7)), isHostOnly: row.integer(4) != 0)
            cookie.createdAt = Date(timeIntervalSince1970: row.real(9))
            cookie.lastAccessedAt = Date(timeIntervalSince1970: row.real(10))
            return cookie
        }
    }

    private func write(_ unsaved: CookieJar.Unsaved, to database: SQLiteDatabase) throws {
        if unsaved.clearsFile { try database.run("DELETE FROM cookies", []) }
        for (key, change) in unsaved.changes {
            switch change {
            case .save(let cookie):
                try database.run(
                    """
                    INSERT OR REPLACE INTO cookies
                        (name, domain, path, value, host_only, secure, http_only, same_site, expires, created, accessed)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [.text(cookie.name), .text(cookie.domain), .text(cookie.path), .text(cookie.value),
                     .integer(cookie.isHostOnly ? 1 : 0), .integer(cookie.isSecure ? 1 : 0), .integer(cookie.isHTTPOnly ? 1 : 0),
                     cookie.sameSite.map { .text($0.rawValue) } ?? .null, cookie.expiresAt.map { .real($0.timeIntervalSince1970) } ?? .null,
                     .real(cookie.createdAt.timeIntervalSince1970), .real(cookie.lastAccessedAt.timeIntervalSince1970)])
            case .delete:
                try database.run(
                    "DELETE FROM cookies WHERE name = ? AND domain = ? AND path = ?", [.text(key.name), .text(key.domain), .text(key.path)])
            }
        }
    }
}
