import Courier
import CourierPostgres
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension PostgresTests {
    /// Three replica processes (`PostgresReplica`: an `APIClient` whose offline queue is the shared
    /// table) drain items to a receiving server that counts `Idempotency-Key`s and checks each
    /// ordering key's order: one is killed with SIGKILL mid-drain, or the server restarts.
    @Suite(.timeLimit(.minutes(10))) struct ReplicaKillTests {
        static let replicaURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("PostgresReplica")

        struct Stats: Decodable {
            let requests: Int
            let distinct: Int
            let duplicates: Int
            let outOfOrder: Int
        }

        @Test func aReplicaKilledMidDrainLosesNothingAndAppliesNothingTwice() async throws {
            let url = try TestPostgres.url()
            let receiver = try await ScriptProcess.start("receiver.py")
            defer { receiver.stop() }
            let total = 10_000
            let keys = 50
            try await TestPostgres.withStorage(operationTimeout: .seconds(60)) { storage, _ in
                let base = "http://127.0.0.1:\(receiver.port)"
                _ = try await storage.insert((0..<total).map { Items.write(key: "k\($0 % keys)", sequence: $0 / keys, baseURL: base) })
                let replicas = try (0..<3).map { try Self.startReplica(url: url, table: storage.table, owner: "replica-\($0)") }
                defer { for replica in replicas where replica.isRunning { replica.terminate() } }

                // Mid-drain: a third delivered.
                while try await Self.stats(base).distinct < total / 3 {
                    #expect(replicas.allSatisfy { $0.isRunning }, "a replica ended before the kill")
                    try await Task.sleep(for: .milliseconds(50))
                }
                kill(replicas[0].processIdentifier, SIGKILL)
                for replica in replicas.dropFirst() {
                    #expect(await Self.exitStatus(replica) == 0)
                }
                let stats = try await Self.stats(base)
                #expect(stats.distinct == total, "every item delivered")
                #expect(stats.outOfOrder == 0, "each key's first applications in order")
                #expect(try await storage.items().isEmpty)
                // A duplicate arrival can only be a killed replica's send in flight, replayed with its key.
                #expect(stats.duplicates <= 8, "at most the killed replica's sends in flight")
            }
        }

        @Test func aServerRestartMidDrainLosesNothingAndTheReplicasGoOn() async throws {
            let url = try TestPostgres.url()
            let receiver = try await ScriptProcess.start("receiver.py")
            defer { receiver.stop() }
            let total = 2_000
            let keys = 20
            try await TestPostgres.withStorage { storage, _ in
                let base = "http://127.0.0.1:\(receiver.port)"
                _ = try await storage.insert((0..<total).map { Items.write(key: "k\($0 % keys)", sequence: $0 / keys, baseURL: base) })
                let replicas = try (0..<3).map { try Self.startReplica(url: url, table: storage.table, owner: "replica-\($0)") }
                defer { for replica in replicas where replica.isRunning { replica.terminate() } }

                while try await Self.stats(base).distinct < total / 3 {
                    #expect(replicas.allSatisfy { $0.isRunning }, "a replica ended before the restart")
                    try await Task.sleep(for: .milliseconds(50))
                }
                // A fast shutdown ends every connection, claims and deletes in flight included.
                try await TestPostgres.control("pause")
                try await TestPostgres.control("resume")
                for replica in replicas {
                    #expect(await Self.exitStatus(replica) == 0)
                }
                let stats = try await Self.stats(base)
                #expect(stats.distinct == total, "every item delivered")
                #expect(stats.outOfOrder == 0, "each key's first applications in order")
                #expect(try await storage.items().isEmpty)
                // A duplicate arrival can only be a send whose delete the restart lost, replayed
                // with its key: at most each replica's claims in flight.
                #expect(stats.duplicates <= 3 * 8, "at most the replicas' sends in flight")
            }
        }

        static func startReplica(url: URL, table: String, owner: String) throws -> Process {
            let process = Process()
            process.executableURL = replicaURL
            process.arguments = [url.absoluteString, table, owner]
            try process.run()
            return process
        }

        /// The process's exit status, waited for on a thread of its own.
        static func exitStatus(_ process: Process) async -> Int32 {
            await withCheckedContinuation { continuation in
                Thread {
                    process.waitUntilExit()
                    continuation.resume(returning: process.terminationStatus)
                }.start()
            }
        }

        static func stats(_ base: String) async throws -> Stats {
            let client = APIClient(configuration: APIClient.Configuration(baseURL: URL(string: base)!, retryPolicy: .never))
            defer { Task { await client.shutdown() } }
            let response = try await client.data(for: HTTPRequest(url: URL(string: "\(base)/stats")!))
            return try JSONDecoder().decode(Stats.self, from: response.body)
        }
    }
}
