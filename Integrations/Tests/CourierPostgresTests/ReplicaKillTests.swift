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
            let total = 10_000
            let (stats, left) = try await Self.drain(total, keys: 50) { replicas in
                kill(replicas[0].processIdentifier, SIGKILL)
                return Array(replicas.dropFirst())
            }
            #expect(stats.distinct == total, "every item delivered")
            #expect(stats.outOfOrder == 0, "each key's first applications in order")
            #expect(left == 0)
            // A duplicate arrival can only be a killed replica's send in flight, replayed with its key.
            #expect(stats.duplicates <= 8, "at most the killed replica's sends in flight")
        }

        @Test func aServerRestartMidDrainLosesNothingAndTheReplicasGoOn() async throws {
            let total = 2_000
            let (stats, left) = try await Self.drain(total, keys: 20) { replicas in
                // A fast shutdown ends every connection, claims and deletes in flight included.
                try await TestPostgres.control("pause")
                try await TestPostgres.control("resume")
                return replicas
            }
            #expect(stats.distinct == total, "every item delivered")
            #expect(stats.outOfOrder == 0, "each key's first applications in order")
            #expect(left == 0)
            // A duplicate arrival can only be a send whose delete the restart lost, replayed
            // with its key: at most each replica's claims in flight.
            #expect(stats.duplicates <= 3 * 8, "at most the replicas' sends in flight")
        }

        /// Three replicas drain `total` items over `keys` ordering keys; once a third is
        /// delivered, `midDrain` does its harm and returns the replicas expected to finish (each
        /// must exit 0). Returns the receiver's counts and how many items are left in the table.
        static func drain(
            _ total: Int, keys: Int, midDrain: ([Process]) async throws -> [Process]
        ) async throws -> (stats: Stats, left: Int) {
            let url = try TestPostgres.url()
            let receiver = try await ScriptProcess.start("receiver.py")
            defer { receiver.stop() }
            return try await TestPostgres.withStorage(operationTimeout: .seconds(60)) { storage, _ in
                let base = "http://127.0.0.1:\(receiver.port)"
                _ = try await storage.insert((0..<total).map { Items.write(key: "k\($0 % keys)", sequence: $0 / keys, baseURL: base) })
                let replicas = try (0..<3).map { try Self.startReplica(url: url, table: storage.table, owner: "replica-\($0)") }
                defer { for replica in replicas where replica.isRunning { replica.terminate() } }
                while try await Self.stats(base).distinct < total / 3 {
                    #expect(replicas.allSatisfy { $0.isRunning }, "a replica ended before mid-drain")
                    try await Task.sleep(for: .milliseconds(50))
                }
                for replica in try await midDrain(replicas) {
                    #expect(await Self.exitStatus(replica) == 0)
                }
                // The test's own pool may meet the restart first here.
                return (try await Self.stats(base), try await TestPostgres.retrying { try await storage.items() }.count)
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
