import CSQLite
import Foundation

/// A SQLite database file, the storage of Courier's durable components: opened in WAL mode with
/// `synchronous=FULL` (a committed transaction is on disk), checked when opened, and replaced
/// by a fresh one if it is corrupt (the bad file is moved aside, not deleted).
///
/// Not thread-safe: one component instance owns it, and uses it from its actor only, which runs
/// on a thread of its own (``ThreadExecutor``): every call here may block (an `fsync`, a wait for
/// a lock), and must never run on the cooperative pool.
final class SQLiteDatabase {
    /// How long a statement waits for a lock another connection or process holds on the file
    /// before it fails with `SQLITE_BUSY` (``Failure``'s description says so).
    static let busyTimeout = Duration.seconds(1)

    /// Why a call failed: the SQLite result code and message.
    struct Failure: Error, CustomStringConvertible {
        let code: Int32
        let message: String
        var description: String {
            guard code & 0xFF == SQLITE_BUSY else { return "SQLite error \(code): \(message)" }
            return "SQLite error \(code): \(message) (another connection or process holds the file; "
                + "gave up after waiting \(SQLiteDatabase.busyTimeout))"
        }
        /// The file is damaged or is not a database.
        var isCorruption: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB }
        /// The connection can no longer be trusted (an I/O error, a damaged file): its owner
        /// fails, and its next instance opens the file again.
        var isUnusable: Bool { isCorruption || code & 0xFF == SQLITE_IOERR }
    }

    /// What opening found: a usable database, and the path a corrupt file was moved to, if any.
    struct Opened {
        let database: SQLiteDatabase
        let movedAside: String?
    }

    private let handle: OpaquePointer
    let path: String
    /// Prepared statements by SQL text, kept for reuse (reset after each use): preparing costs
    /// more than running a small statement.
    private var statements: [String: OpaquePointer] = [:]

    private init(handle: OpaquePointer, path: String) {
        self.handle = handle
        self.path = path
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// Opens (or creates) the database at `path` and runs `schema`. A file that is not a
    /// database, or fails its integrity check, is moved to `<path>.corrupt-<time>` (with its WAL
    /// and shared-memory files) and a fresh database is created in its place.
    static func open(_ path: String, schema: String) throws -> Opened {
        do {
            return Opened(database: try openChecked(path, schema: schema), movedAside: nil)
        } catch let failure as Failure where failure.isCorruption {
            let aside = try moveAside(path)
            return Opened(database: try openChecked(path, schema: schema), movedAside: aside)
        }
    }

    /// Moves the database file at `path`, with its WAL and shared-memory files, to
    /// `<path>.corrupt-<time>` (`-<n>` added if that is taken: an earlier file is never
    /// overwritten), and returns the new path. The caller has closed every connection to it.
    static func moveAside(_ path: String) throws -> String {
        let files = FileManager.default
        let stem = "\(path).corrupt-\(Int(Date().timeIntervalSince1970))"
        var aside = stem
        var attempt = 0
        while ["", "-wal", "-shm"].contains(where: { files.fileExists(atPath: aside + $0) }) {
            attempt += 1
            aside = "\(stem)-\(attempt)"
        }
        for suffix in ["", "-wal", "-shm"] where files.fileExists(atPath: path + suffix) {
            try files.moveItem(atPath: path + suffix, toPath: aside + suffix)
        }
        return aside
    }

    /// Opens the database at `path` to read only, unchecked: to read what is left of a damaged
    /// file. Nothing is written to it (its WAL, if any, is read but not checkpointed).
    static func openReadOnly(_ path: String) throws -> SQLiteDatabase {
        var handle: OpaquePointer?
        let status = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(handle)
            throw Failure(code: status, message: message)
        }
        let database = SQLiteDatabase(handle: handle, path: path)
        // Every cell's size checked against its page as it is read: damage is an error, not a
        // wrong row.
        try? database.execute("PRAGMA cell_size_check=ON")
        return database
    }

    private static func openChecked(_ path: String, schema: String) throws -> SQLiteDatabase {
        var handle: OpaquePointer?
        let status = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(handle)
            throw Failure(code: status, message: message)
        }
        let database = SQLiteDatabase(handle: handle, path: path)
        sqlite3_busy_timeout(handle, Int32(busyTimeout.inSeconds * 1000))
        try database.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;")
        let check = try database.query("PRAGMA quick_check", [], columns: { $0.text(0) })
        guard check == ["ok"] else { throw Failure(code: SQLITE_CORRUPT, message: "integrity check failed") }
        try database.execute(schema)
        return database
    }

    /// Runs statements that take no parameters and return no rows.
    func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &error)
        defer { sqlite3_free(error) }
        guard status == SQLITE_OK else {
            throw Failure(code: status, message: error.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle)))
        }
    }

    /// Runs `body` in one transaction (`BEGIN IMMEDIATE` … `COMMIT`): everything it wrote is
    /// durable when this returns, or, if it throws, nothing of it is (rolled back).
    func transaction<Result>(_ body: () throws -> Result) throws -> Result {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// The row id the last successful `INSERT` on this connection gave its row.
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// A value bound to a statement's `?` parameter.
    enum Value {
        case integer(Int64)
        case real(Double)
        case text(String)
        case blob(Data)
        case null
    }

    /// Runs one statement with `parameters`; returns how many rows it changed.
    @discardableResult
    func run(_ sql: String, _ parameters: [Value]) throws -> Int {
        let (statement, cached) = try prepare(sql, parameters)
        defer { release(statement, cached: cached) }
        let status = sqlite3_step(statement)
        guard status == SQLITE_DONE || status == SQLITE_ROW else { throw failure(status) }
        return Int(sqlite3_changes(handle))
    }

    /// Runs a query and reads each row with `columns`.
    func query<Row>(_ sql: String, _ parameters: [Value], columns: (RowReader) throws -> Row) throws -> [Row] {
        let (statement, cached) = try prepare(sql, parameters)
        defer { release(statement, cached: cached) }
        var rows: [Row] = []
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return rows }
            guard status == SQLITE_ROW else { throw failure(status) }
            rows.append(try columns(RowReader(statement: statement)))
        }
    }

    /// Reads the columns of the current row.
    struct RowReader {
        fileprivate let statement: OpaquePointer

        func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }
        func real(_ column: Int32) -> Double { sqlite3_column_double(statement, column) }
        func text(_ column: Int32) -> String {
            sqlite3_column_text(statement, column).map { String(cString: $0) } ?? ""
        }
        func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }
        /// The column's value as stored, whatever its type.
        func value(_ column: Int32) -> Value {
            switch sqlite3_column_type(statement, column) {
            case SQLITE_INTEGER: .integer(integer(column))
            case SQLITE_FLOAT: .real(real(column))
            case SQLITE_TEXT: .text(text(column))
            case SQLITE_BLOB: .blob(blob(column))
            default: .null
            }
        }
        func blob(_ column: Int32) -> Data {
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return Data() }
            return Data(bytes: bytes, count: count)
        }
    }

    /// The statement of `sql` (prepared once, then reused) with `parameters` bound. If the cached
    /// one is still stepping (the same SQL run from inside a `query`'s row reader), a fresh one is
    /// prepared for this use only.
    private func prepare(_ sql: String, _ parameters: [Value]) throws -> (OpaquePointer, cached: Bool) {
        let statement: OpaquePointer
        let cached: Bool
        if let reusable = statements[sql], sqlite3_stmt_busy(reusable) == 0 {
            (statement, cached) = (reusable, true)
        } else {
            var prepared: OpaquePointer?
            let status = sqlite3_prepare_v2(handle, sql, -1, &prepared, nil)
            guard status == SQLITE_OK, let prepared else { throw failure(status) }
            cached = statements[sql] == nil
            if cached { statements[sql] = prepared }
            statement = prepared
        }
        // SQLITE_TRANSIENT: SQLite copies the bytes before the call returns.
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for (index, parameter) in parameters.enumerated() {
            let position = Int32(index + 1)
            let bound: Int32
            switch parameter {
            case .integer(let value): bound = sqlite3_bind_int64(statement, position, value)
            case .real(let value): bound = sqlite3_bind_double(statement, position, value)
            case .text(let value): bound = sqlite3_bind_text(statement, position, value, -1, transient)
            case .null: bound = sqlite3_bind_null(statement, position)
            case .blob(let value):
                bound = value.withUnsafeBytes { bytes in
                    sqlite3_bind_blob(statement, position, bytes.baseAddress, Int32(bytes.count), transient)
                }
            }
            guard bound == SQLITE_OK else {
                let error = failure(bound)
                release(statement, cached: cached)
                throw error
            }
        }
        return (statement, cached)
    }

    /// Done with `statement`: a cached one is reset for its next use (its bindings cleared, so
    /// it holds no copy of a body), any other finalized.
    private func release(_ statement: OpaquePointer, cached: Bool) {
        if cached {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        } else {
            sqlite3_finalize(statement)
        }
    }

    private func failure(_ status: Int32) -> Failure {
        Failure(code: status, message: String(cString: sqlite3_errmsg(handle)))
    }
}
