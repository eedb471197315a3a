import Foundation

/// The records on disk: one SQLite table of records (key, fields as JSON), and whose they are.
/// Used by ``GraphQLRecordPersistence`` only, on its own thread: every call may block.
///
/// A field's value is stored as JSON: a scalar as it arrived, a reference as `{"$ref": key}`,
/// a list of objects as `{"$list": […]}`, and a scalar that is itself an object (a custom
/// scalar) as `{"$json": …}`, so that no scalar is read back as a reference.
final class GraphQLRecordFile {
    private let database: SQLiteDatabase
    /// Where a corrupt file was moved when this one was opened, if it was.
    let movedAside: String?

    static let schema = """
        CREATE TABLE IF NOT EXISTS records (key TEXT PRIMARY KEY NOT NULL, fields BLOB NOT NULL) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS owner (id INTEGER PRIMARY KEY CHECK (id = 0), identity TEXT);
        """

    private init(database: SQLiteDatabase, movedAside: String?) {
        self.database = database
        self.movedAside = movedAside
    }

    /// Opens (or creates) the file at `path`; a corrupt one is moved aside and replaced.
    static func open(_ path: String) throws -> GraphQLRecordFile {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        let opened = try SQLiteDatabase.open(path, schema: schema)
        return GraphQLRecordFile(database: opened.database, movedAside: opened.movedAside)
    }

    /// Makes the file `identity`'s: the records of another identity (or of none, when one is
    /// given) are deleted first.
    func adopt(_ identity: String?) throws {
        let stored = try database.query("SELECT identity FROM owner WHERE id = 0", [], columns: { $0.isNull(0) ? nil : $0.text(0) })
        if stored.first == identity { return }
        try database.transaction {
            if !stored.isEmpty { try database.run("DELETE FROM records", []) }
            try database.run("INSERT OR REPLACE INTO owner (id, identity) VALUES (0, ?)", [identity.map { .text($0) } ?? .null])
        }
    }

    /// Applies `changes` in order, in one transaction.
    func apply(_ changes: [GraphQLRecordChange]) throws {
        try database.transaction {
            for change in changes {
                switch change {
                case .merge(let records):
                    for (key, record) in records {
                        var fields = try self.record(key)?.fields ?? [:]
                        fields.merge(record.fields) { _, new in new }
                        try database.run(
                            "INSERT OR REPLACE INTO records (key, fields) VALUES (?, ?)", [.text(key), .blob(Self.encode(GraphQLRecord(fields: fields)))])
                    }
                case .evict(let key, field: nil):
                    try database.run("DELETE FROM records WHERE key = ?", [.text(key)])
                case .evict(let key, field: let field?):
                    guard var record = try self.record(key), record.fields.removeValue(forKey: field) != nil else { continue }
                    try database.run("INSERT OR REPLACE INTO records (key, fields) VALUES (?, ?)", [.text(key), .blob(Self.encode(record))])
                case .clear:
                    try database.run("DELETE FROM records", [])
                case .adopt(let identity):
                    let stored = try database.query("SELECT identity FROM owner WHERE id = 0", [], columns: { $0.isNull(0) ? nil : $0.text(0) })
                    if stored.first != identity {
                        try database.run("DELETE FROM records", [])
                        try database.run("INSERT OR REPLACE INTO owner (id, identity) VALUES (0, ?)", [identity.map { .text($0) } ?? .null])
                    }
                }
            }
        }
    }

    /// The record `key`, if the file holds it.
    func record(_ key: String) throws -> GraphQLRecord? {
        let rows = try database.query("SELECT fields FROM records WHERE key = ?", [.text(key)], columns: { $0.blob(0) })
        return try rows.first.map(Self.decode)
    }

    /// How many records the file holds.
    func count() throws -> Int {
        Int(try database.query("SELECT COUNT(*) FROM records", [], columns: { $0.integer(0) }).first ?? 0)
    }

    // MARK: Encoding

    static func encode(_ record: GraphQLRecord) throws -> Data {
        try JSONEncoder().encode(JSONValue.object(record.fields.mapValues(json)))
    }

    static func decode(_ bytes: Data) throws -> GraphQLRecord {
        guard case .object(let fields) = try JSONDecoder().decode(JSONValue.self, from: bytes) else {
            throw SQLiteDatabase.Failure(code: 11, message: "a record is not a JSON object")
        }
        return GraphQLRecord(fields: fields.mapValues(value))
    }

    private static func json(_ value: GraphQLRecord.Value) -> JSONValue {
        switch value {
        case .scalar(.object(let object)): .object(["$json": .object(object)])
        case .scalar(let scalar): scalar
        case .reference(let key): .object(["$ref": .string(key)])
        case .list(let items): .object(["$list": .array(items.map(json))])
        }
    }

    private static func value(_ json: JSONValue) -> GraphQLRecord.Value {
        guard case .object(let object) = json, object.count == 1 else { return .scalar(json) }
        switch (object["$ref"], object["$list"], object["$json"]) {
        case (.string(let key)?, _, _): return .reference(key)
        case (_, .array(let items)?, _): return .list(items.map(value))
        case (_, _, let wrapped?): return .scalar(wrapped)
        default: return .scalar(json)
        }
    }
}
