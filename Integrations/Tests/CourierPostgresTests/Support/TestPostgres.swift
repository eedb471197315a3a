import CourierPostgres
import Foundation
import Logging
import PostgresNIO
import Testing

/// The PostgreSQL server the tests run against: `.ci/postgres start` makes one and `.ci/postgres
/// env` exports its URL (`COURIER_POSTGRES_URL`) and the script that pauses and resumes it
/// (`COURIER_POSTGRES_CONTROL`). Without them a test is skipped, or fails under
/// `COURIER_REQUIRE_TEST_TOOLS=1` (CI), as the suite's other tool-needing tests do.
enum TestPostgres {
    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// The server's URL; skips (or fails in CI) the running test without one.
    static func url() throws -> URL {
        guard let text = environment["COURIER_POSTGRES_URL"], let url = URL(string: text) else {
            let reason = "no PostgreSQL server (run `eval \"$(.ci/postgres start >/dev/null; .ci/postgres env)\"`)"
            if environment["COURIER_REQUIRE_TEST_TOOLS"] == "1" {
                throw Unavailable(description: "required test tool missing (COURIER_REQUIRE_TEST_TOOLS=1): \(reason)")
            }
            try Test.cancel(Comment(rawValue: "skipped: \(reason)"))
        }
        return url
    }

    /// The client configuration for `url` (`postgres://user@host:port/database`), or for
    /// `port` on 127.0.0.1 instead of the URL's (a proxy in front of the server).
    static func configuration(_ url: URL, port: Int? = nil, connections: Int = 8) -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: url.host ?? "127.0.0.1", port: port ?? url.port ?? 5432, username: url.user ?? "postgres",
            password: url.password, database: String(url.path.dropFirst()), tls: .disable
        )
        configuration.options.maximumConnections = connections
        configuration.options.minimumConnections = 0
        return configuration
    }

    /// Runs `body` with a running client of the test server (through `port` when given) and a
    /// storage in a table of its own, dropped afterwards.
    static func withStorage<Result: Sendable>(
        port: Int? = nil, connections: Int = 8, table: String = uniqueTable(),
        _ body: (PostgresOfflineStorage, PostgresClient) async throws -> Result
    ) async throws -> Result {
        let url = try url()
        let client = PostgresClient(configuration: configuration(url, port: port, connections: connections))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let storage = PostgresOfflineStorage(client: client, table: table)
            do {
                let result = try await body(storage, client)
                try? await drop(table, url: url)
                return result
            } catch {
                try? await drop(table, url: url)
                throw error
            }
        }
    }

    /// A table name no other test uses.
    static func uniqueTable() -> String {
        "courier_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
    }

    /// Drops `table` on a connection of its own (the test's may be cut).
    static func drop(_ table: String, url: URL) async throws {
        let client = PostgresClient(configuration: configuration(url, connections: 1))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            try await client.query(PostgresQuery(unsafeSQL: "DROP TABLE IF EXISTS \(table)"))
        }
    }

    /// Stops (`pause`) or starts again (`resume`) the server, through `.ci/postgres`.
    static func control(_ command: String) async throws {
        guard let script = environment["COURIER_POSTGRES_CONTROL"] else {
            throw Unavailable(description: "COURIER_POSTGRES_CONTROL is not set (.ci/postgres env)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = [command]
        // Waiting for the script runs on a thread of its own, never on the pool.
        let status = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int32, any Error>) in
            Thread {
                do {
                    try process.run()
                    process.waitUntilExit()
                    continuation.resume(returning: process.terminationStatus)
                } catch {
                    continuation.resume(throwing: error)
                }
            }.start()
        }
        guard status == 0 else { throw Unavailable(description: "\(script) \(command) exited \(status)") }
    }
}
