import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What recovering a damaged offline queue file did: how many of its rows were copied into the
/// fresh file, how many it held that could not be read (`nil`: it no longer says how many it
/// held), and where it was moved.
struct OfflineStoreRecovery: Sendable, Equatable {
    let salvaged: Int
    let lost: Int?
    let movedTo: String
}

extension OfflineStore {
    /// The columns of a row, as a salvage reads and writes them (and those of ``addedColumns``
    /// the damaged file has).
    private static let salvageColumns = """
        id, method, url, headers, body, requires_auth, idempotency_key, created_at, expires_at, attempts, last_error,
        state, next_attempt_at, server_status, server_headers, server_body
        """

    /// The most single-row reads one salvage makes: enough for a million ids, a bound on the
    /// time a file damaged beyond reading (where every read fails) costs.
    static let salvageProbes = 1_000_000

    /// Copies every row of the damaged file at `damaged` that SQLite can still read into
    /// `fresh`, keeping its id, and raises `fresh`'s id sequence above every id `damaged`
    /// knew of and `reserved` (the id file's reservation), so no id is handed out twice.
    ///
    /// SQLite's `.recover` is a shell command, not in the C API, so this reads by hand, read-only:
    /// the rows in id order until the first unreadable page (if that is the end, it read them
    /// all); else also from the last id down, and then each id not read yet one at a time (a
    /// lookup reaches a row through pages a scan could not pass), in passes from the highest
    /// known id down and back up while a pass still finds rows: what SQLite lets through a
    /// damaged page depends on what it read before.
    /// A row is kept only whole: one whose read fails is lost. `lost` is the file's row count
    /// (if it can still be counted) less what was copied.
    static func salvage(from damaged: String, into fresh: SQLiteDatabase, reserved: Int64) throws -> (salvaged: Int, lost: Int?) {
        var rows: [Int64: [SQLiteDatabase.Value]] = [:]
        var columns = salvageColumns
        var sequence: Int64 = 0
        var total: Int64?
        // The table's schema must still read, or nothing can be. Loading a damaged schema may
        // fail once and then succeed (SQLite keeps what it read): tried more than once.
        if let source = try? SQLiteDatabase.openReadOnly(damaged),
           (0..<3).contains(where: { _ in (try? source.query("SELECT id FROM items WHERE 0", []) { _ in }) != nil }) {
            // The columns added since the first version, those the damaged file has.
            let present = Set((try? source.query("PRAGMA table_info(items)", []) { $0.text(1) }) ?? [])
            columns += addedColumns.map(\.name).filter(present.contains).map { ", " + $0 }.joined()
            let select = "SELECT \(columns) FROM items"
            let count = Int32(16 + addedColumns.filter { present.contains($0.name) }.count)
            func keep(_ row: SQLiteDatabase.RowReader) {
                let id = row.integer(0)
                if rows[id] == nil { rows[id] = (0..<count).map { row.value($0) } }
            }
            sequence = (try? source.query("SELECT seq FROM sqlite_sequence WHERE name = 'items'", []) { $0.integer(0) })?.first ?? 0
            if (try? source.query(select + " ORDER BY id", [], columns: keep)) == nil {
                _ = try? source.query(select + " ORDER BY id DESC", [], columns: keep)
                // What a damaged page lets through depends on what was read before it: passes
                // go on, down then up, while one still finds rows.
                let ids = 1...max(1, reserved, sequence, rows.keys.max() ?? 0)
                var probes = 0
                for pass in 0..<8 {
                    let before = rows.count
                    for id in pass % 2 == 0 ? AnyCollection(ids.reversed()) : AnyCollection(ids) where rows[id] == nil {
                        guard probes < salvageProbes else { break }
                        probes += 1
                        _ = try? source.query(select + " WHERE id = ?", [.integer(id)], columns: keep)
                    }
                    if rows.count == before, pass > 0 { break }
                }
            }
            total = (try? source.query("SELECT count(*) FROM items", []) { $0.integer(0) })?.first
        }
        // No item ever had an id above the reservation or the file's sequence: a row read with
        // one is damaged beyond use (when neither is known, only absurd ids are refused).
        let known = max(reserved, sequence)
        let limit = known > 0 ? known : Int64.max / 2
        let kept = rows.keys.filter { $0 > 0 && $0 <= limit }.sorted()
        var salvaged = 0
        try fresh.transaction {
            for id in kept {
                let values = normalized(rows[id] ?? [])
                let placeholders = Array(repeating: "?", count: values.count).joined(separator: ", ")
                if (try? fresh.run("INSERT INTO items (\(columns)) VALUES (\(placeholders))", values)) != nil {
                    salvaged += 1
                }
            }
            let floor = max(known, kept.last ?? 0)
            if floor > 0,
               try fresh.run("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'items'", [.integer(floor)]) == 0 {
                try fresh.run("INSERT INTO sqlite_sequence (name, seq) VALUES ('items', ?)", [.integer(floor)])
            }
        }
        return (salvaged, total.map { max(0, Int($0) - salvaged) })
    }

    /// A damaged row's values with a neutral value where the schema forbids `NULL`: it is kept
    /// (and comes back as a dead letter if it no longer reads as an item), not refused.
    private static func normalized(_ values: [SQLiteDatabase.Value]) -> [SQLiteDatabase.Value] {
        var values = values
        for (index, value) in values.enumerated() {
            guard case .null = value else { continue }
            switch index {
            case 1, 2, 6, 11: values[index] = .text("")   // method, url, idempotency_key, state
            case 3: values[index] = .blob(Data())   // headers
            case 5, 9: values[index] = .integer(0)   // requires_auth, attempts
            case 7, 8: values[index] = .real(0)   // created_at, expires_at
            default: break
            }
        }
        return values
    }
}

/// The id file beside the offline queue's database (`<database>.ids`: one decimal line): the
/// highest item id that may have been handed out. An id is reserved here (in blocks of
/// ``OfflineStore/idBlock``) before its item is stored, so even when the database is damaged
/// beyond reading and replaced, new ids go above every id an app may still hold. Written
/// atomically: a temporary file, `fsync`, `rename`, then the directory synced.
struct IDReservation {
    let path: String

    /// Why writing the file failed.
    struct Failure: Error, CustomStringConvertible {
        let path: String
        let operation: String
        let code: Int32
        var description: String { "the id file \(path) could not be written (\(operation): \(String(cString: strerror(code))))" }
    }

    /// The reserved id; 0 if there is no file, or it does not hold a number.
    func read() -> Int64 {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else { return 0 }
        return Int64(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Replaces the reserved id with `value`, durably.
    func store(_ value: Int64) throws {
        let temporary = path + ".tmp"
        let file = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard file >= 0 else { throw Failure(path: path, operation: "open", code: errno) }
        let bytes = Array("\(value)\n".utf8)
        let written = bytes.withUnsafeBytes { Self.writeAll(file, $0) }
        let synced = written ? fsync(file) : -1
        let code = errno
        close(file)
        guard written, synced == 0 else { throw Failure(path: path, operation: "write", code: code) }
        guard rename(temporary, path) == 0 else { throw Failure(path: path, operation: "rename", code: errno) }
        let directory = open(URL(fileURLWithPath: path).deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }

    private static func writeAll(_ file: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = write(file, bytes.baseAddress! + offset, bytes.count - offset)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }
}
