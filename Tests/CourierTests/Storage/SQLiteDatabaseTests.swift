import Testing

@testable import Courier

@Suite struct SQLiteDatabaseTests {
    @Test("a statement reused from the cache; the same SQL run inside a query's row reader gets a statement of its own")
    func statementReuse() throws {
        let database = try SQLiteDatabase.open(":memory:", schema: "CREATE TABLE t (n INTEGER);").database
        try database.transaction {
            for n in 1...3 { try database.run("INSERT INTO t (n) VALUES (?)", [.integer(Int64(n))]) }
        }
        let sql = "SELECT n FROM t WHERE n >= ? ORDER BY n"
        let pairs = try database.query(sql, [.integer(2)]) { row in
            (row.integer(0), try database.query(sql, [.integer(row.integer(0))]) { $0.integer(0) })
        }
        #expect(pairs.map(\.0) == [2, 3])
        #expect(pairs.map(\.1) == [[2, 3], [3]])
        #expect(try database.query(sql, [.integer(1)]) { $0.integer(0) } == [1, 2, 3])
    }
}
