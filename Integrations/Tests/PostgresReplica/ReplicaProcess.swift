import Courier
import CourierPostgres
import Foundation
import PostgresNIO

// One replica of the kill and restart tests (ReplicaKillTests), a process of its own so that it can
// be killed with SIGKILL: an APIClient whose offline queue is the shared PostgreSQL table
// (`Offline.sharedStorage`), draining it with its own sync coordinator until nothing waits. Its
// leases are short (real time: a killed replica's leases expire for the others).
//
//   PostgresReplica <postgres-url> <table> <owner>

@main
enum ReplicaProcess {
    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count == 4, let url = URL(string: arguments[1]) else {
            FileHandle.standardError.write(Data("usage: PostgresReplica <postgres-url> <table> <owner>\n".utf8))
            exit(2)
        }
        let table = arguments[2]
        let owner = arguments[3]

        var configuration = PostgresClient.Configuration(
            host: url.host ?? "127.0.0.1", port: url.port ?? 5432, username: url.user ?? "postgres", password: url.password,
            database: String(url.path.dropFirst()), tls: .disable
        )
        configuration.options.maximumConnections = 4
        let postgres = PostgresClient(configuration: configuration)
        let storage = PostgresOfflineStorage(client: postgres, table: table)
        let client = APIClient(configuration: replicaConfiguration(storage))

        let exitCode: Int32 = await withTaskGroup(of: Int32?.self) { group in
            group.addTask {
                await postgres.run()
                return nil
            }
            group.addTask {
                // The client drains on its own (wake-ups, its periodic drain); `sync` asks for
                // one now, and the count says when every replica's turns are done. While the
                // server is away (a restart) they fail, and are asked again: the client's own
                // drain goes on once the pool has reconnected.
                var failures = 0
                while true {
                    do {
                        _ = try await client.offline.sync()
                        if try await client.offline.pendingCount == 0 { return 0 }
                        failures = 0
                    } catch NetworkError.storageFailed(let reason) where failures < 300 {
                        failures += 1
                        if failures == 1 { FileHandle.standardError.write(Data("PostgresReplica \(owner): \(reason)\n".utf8)) }
                    } catch {
                        FileHandle.standardError.write(Data("PostgresReplica \(owner): \(error)\n".utf8))
                        return 1
                    }
                    try? await Task.sleep(for: .milliseconds(failures > 0 ? 200 : 50))
                }
            }
            let code = await group.next() ?? 1
            group.cancelAll()
            return code ?? 1
        }
        await client.shutdown()
        exit(exitCode)
    }

    /// A client whose offline queue is `storage`, leased for 5 s, retried quickly.
    static func replicaConfiguration(_ storage: PostgresOfflineStorage) -> APIClient.Configuration {
        var offline = APIClient.Configuration.Offline(
            maxItems: 1_000_000, maxAttempts: 100, retryBackoff: .constant(.milliseconds(200)), drainInterval: .seconds(1))
        offline.sharedStorage = storage
        offline.lease = .seconds(5)
        var configuration = APIClient.Configuration(baseURL: URL(string: "http://127.0.0.1")!, retryPolicy: .never)
        configuration.connectivity = .init(watchesLink: false, learnsFromRequests: false)
        configuration.offline = offline
        return configuration
    }
}
