import Courier
import CourierPostgres
import Foundation
import PostgresNIO

// One replica of the kill test (PostgresReplicaKillTests), a process of its own so that it can
// be killed with SIGKILL: drains the table until nothing waits, claiming each ordering key's
// head under a short lease (real time: a killed replica's leases expire for the others),
// sending it with its Idempotency-Key, then deleting it.
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
        let lease = Duration.seconds(5)

        var configuration = PostgresClient.Configuration(
            host: url.host ?? "127.0.0.1", port: url.port ?? 5432, username: url.user ?? "postgres", password: url.password,
            database: String(url.path.dropFirst()), tls: .disable
        )
        configuration.options.maximumConnections = 4
        let postgres = PostgresClient(configuration: configuration)
        let storage = PostgresOfflineStorage(client: postgres, table: table)
        let http = APIClient(configuration: APIClient.Configuration(baseURL: URL(string: "http://127.0.0.1")!, retryPolicy: .never))

        let exitCode: Int32 = await withTaskGroup(of: Int32?.self) { group in
            group.addTask {
                await postgres.run()
                return nil
            }
            group.addTask {
                do {
                    while true {
                        let claimed = try await storage.claim(owner: owner, limit: 8, identity: nil, now: Date(), lease: lease)
                        if claimed.isEmpty {
                            if try await storage.waitingCount() == 0 { return 0 }
                            try await Task.sleep(for: .milliseconds(20))
                            continue
                        }
                        // The claimed heads are of different keys: they go together.
                        let sent = await withTaskGroup(of: Int64?.self) { sends in
                            for item in claimed {
                                sends.addTask {
                                    var request = item.request
                                    request.headers["Idempotency-Key"] = item.idempotencyKey
                                    guard let response = try? await http.data(for: request), response.isSuccess else { return nil }
                                    return item.id
                                }
                            }
                            return await sends.reduce(into: [Int64]()) { if let id = $1 { $0.append(id) } }
                        }
                        try await storage.write(owner: owner, updating: [], deleting: sent)
                    }
                } catch {
                    FileHandle.standardError.write(Data("PostgresReplica \(owner): \(error)\n".utf8))
                    return 1
                }
            }
            let code = await group.next() ?? 1
            group.cancelAll()
            return code ?? 1
        }
        await http.shutdown()
        exit(exitCode)
    }
}
