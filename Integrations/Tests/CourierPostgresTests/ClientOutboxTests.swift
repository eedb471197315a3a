import Courier
import CourierPostgres
import Foundation
import Logging
import PostgresNIO
import Testing

extension PostgresTests {
    /// The outbox end to end: clients configured with the PostgreSQL storage replay what a
    /// committed transaction queued, and never what a rolled-back one did.
    @Suite struct ClientOutboxTests {
        struct Refused: Error {}

        @Test func aCommittedOutboxWriteGoesOutARolledBackOneNever() async throws {
            let receiver = try await ScriptProcess.start("receiver.py")
            defer { receiver.stop() }
            let base = "http://127.0.0.1:\(receiver.port)"
            try await TestPostgres.withStorage { storage, client in
                try await storage.prepare()
                let logger = Logger(label: "test")
                let request = { (sequence: Int) in
                    HTTPRequest(
                        method: .post, url: URL(string: "\(base)/shipments")!,
                        headers: ["X-Ordering-Key": "order-1", "X-Sequence": "\(sequence)"], body: Data("{}".utf8))
                }
                await #expect(throws: (any Error).self) {
                    try await client.withTransaction(logger: logger) { connection in
                        try await storage.enqueue(request(0), options: PostgresOutboxOptions(idempotencyKey: "rolled-back"), on: connection)
                        throw Refused()
                    }
                }
                _ = try await client.withTransaction(logger: logger) { connection in
                    try await storage.enqueue(request(1), options: PostgresOutboxOptions(idempotencyKey: "committed"), on: connection)
                }

                var configuration = APIClient.Configuration(baseURL: URL(string: base)!, retryPolicy: .never)
                var offline = APIClient.Configuration.Offline()
                offline.sharedStorage = storage
                configuration.offline = offline
                let replica = APIClient(configuration: configuration)
                defer { Task { await replica.shutdown() } }
                _ = try await replica.offline.sync()
                while try await storage.waitingCount() > 0 { _ = try await replica.offline.sync() }

                let stats = try await ReplicaKillTests.stats(base)
                #expect(stats.distinct == 1 && stats.requests == 1)
                #expect(try await storage.items().isEmpty)
            }
        }
    }
}
