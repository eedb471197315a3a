import Courier
import CourierPostgres
import Foundation
import PostgresNIO
import Testing

extension PostgresTests {
    /// The transactional outbox: an enqueue inside the caller's transaction commits or rolls
    /// back with the caller's own rows.
    @Suite struct OutboxTests {
        struct Refused: Error {}

        let request = HTTPRequest(
            method: .post, url: URL(string: "http://127.0.0.1:9/orders/1/shipped")!,
            headers: ["Authorization": "Bearer secret", "Content-Type": "application/json"], body: Data("{}".utf8)
        )

        @Test func aRolledBackEnqueueNeverExistsACommittedOneIsQueued() async throws {
            try await TestPostgres.withStorage { storage, client in
                let orders = TestPostgres.uniqueTable()
                try await client.query(PostgresQuery(unsafeSQL: "CREATE TABLE \(orders) (id SERIAL PRIMARY KEY, note TEXT)"))
                let wakeUps = storage.wakeUps()
                var iterator = wakeUps.makeAsyncIterator()
                _ = await iterator.next()

                await #expect(throws: (any Error).self) {
                    try await client.withTransaction(logger: Logger(label: "test")) { connection in
                        try await connection.query(PostgresQuery(unsafeSQL: "INSERT INTO \(orders) (note) VALUES ('rolled back')"), logger: Logger(label: "test"))
                        try await storage.enqueue(request, options: PostgresOutboxOptions(orderingKey: "order-1"), on: connection)
                        throw Refused()
                    }
                }
                #expect(try await storage.items().isEmpty)
                #expect(try await storage.claim(owner: "r1", limit: 5, identity: nil, now: Items.start, lease: .seconds(30)).isEmpty)

                let id = try await client.withTransaction(logger: Logger(label: "test")) { connection in
                    try await connection.query(PostgresQuery(unsafeSQL: "INSERT INTO \(orders) (note) VALUES ('committed')"), logger: Logger(label: "test"))
                    return try await storage.enqueue(
                        request, options: PostgresOutboxOptions(orderingKey: "order-1", idempotencyKey: "ship-1"), now: Items.start, on: connection
                    )
                }
                // Notified on commit only (the rolled-back insert announced nothing).
                #expect(await iterator.next() != nil)
                var notes: [String] = []
                for try await note in try await client.query(PostgresQuery(unsafeSQL: "SELECT note FROM \(orders)")).decode(String.self) {
                    notes.append(note)
                }
                #expect(notes == ["committed"])
                let claimed = try await storage.claim(owner: "r1", limit: 5, identity: nil, now: Items.start, lease: .seconds(30))
                #expect(claimed.map(\.id) == [id])
                #expect(claimed.first?.idempotencyKey == "ship-1" && claimed.first?.orderingKey == "order-1")
                // Stored as a client's enqueue stores it: the token is added at replay, not kept.
                #expect(claimed.first?.request.headers["Authorization"] == nil)
                #expect(claimed.first?.expiresAt == Items.start.addingTimeInterval(24 * 3600))
                try await client.query(PostgresQuery(unsafeSQL: "DROP TABLE \(orders)"))
            }
        }

        /// Once the table exists, an outbox enqueue uses only the caller's connection: with the
        /// pool's one connection held by the caller's transaction, it does not wait for another.
        @Test func aPreparedOutboxEnqueueNeedsNoConnectionOfItsOwn() async throws {
            try await TestPostgres.withStorage(connections: 1) { storage, client in
                try await storage.prepare()
                let id = try await client.withTransaction(logger: Logger(label: "test")) { connection in
                    try await storage.enqueue(request, options: PostgresOutboxOptions(orderingKey: "order-1"), on: connection)
                }
                #expect(try await storage.items().map(\.id) == [id])
            }
        }

        @Test func aFailedStatementSaysWhatFailed() async throws {
            try await TestPostgres.withStorage { storage, client in
                try await client.query(PostgresQuery(unsafeSQL: "CREATE TABLE \(storage.table) (id INT)"))
                do {
                    _ = try await storage.insert([Items.write()])
                    Issue.record("an insert into a foreign table succeeded")
                } catch let NetworkError.storageFailed(reason) {
                    #expect(reason.contains("PostgreSQL \(storage.table): insert failed"))
                    #expect(reason.contains("does not exist"))
                }
            }
        }
    }
}
