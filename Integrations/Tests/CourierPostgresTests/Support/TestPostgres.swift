import Courier
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
        port: Int? = nil, connections: Int = 8, table: String = uniqueTable(), operationTimeout: Duration = .seconds(3),
        _ body: (PostgresOfflineStorage, PostgresClient) async throws -> Result
    ) async throws -> Result {
        let url = try url()
        let client = PostgresClient(configuration: configuration(url, port: port, connections: connections))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let storage = PostgresOfflineStorage(client: client, table: table, operationTimeout: operationTimeout)
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

    /// `body`'s value, tried again (up to three times) while it fails with `storageFailed`: the
    /// first call after a cut connection may meet it before the pool has noticed.
    static func retrying<Value>(_ body: () async throws -> Value) async throws -> Value {
        for _ in 0..<2 {
            do { return try await body() } catch NetworkError.storageFailed {}
        }
        return try await body()
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
        // posix_spawn and waitpid on a thread of their own (never the pool): Foundation's
        // Process did not report the script's exit once it had started the server's daemon.
        let status = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            Thread {
                var pid: pid_t = 0
                var actions = posix_spawn_file_actions_t()
                posix_spawn_file_actions_init(&actions)
                posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
                let arguments: [UnsafeMutablePointer<CChar>?] = [strdup(script), strdup(command), nil]
                defer { arguments.forEach { free($0) } }
                guard posix_spawn(&pid, script, &actions, nil, arguments, environ) == 0 else {
                    continuation.resume(returning: -1)
                    return
                }
                posix_spawn_file_actions_destroy(&actions)
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                continuation.resume(returning: status)
            }.start()
        }
        guard status == 0 else { throw Unavailable(description: "\(script) \(command) exited with status \(status)") }
    }
}
