#if canImport(CCurl)
import Foundation
@testable import Courier

/// Drives `hostile_server.py`, a raw-socket HTTP/1.1 server that answers each path with one way
/// of breaking HTTP (see the script's docstring), a plain `/ok`, and the load test's `/load`.
///
/// Its two control paths (`/await`, `/stats`) are asked over a ``CurlTransport`` of its own,
/// so that they never share a connection with the transport under test.
///
/// Thread safety: every stored property is a `let` of a `Sendable` type.
final class HostileServer: Sendable {
    /// What the server has seen so far (its `/stats`).
    struct Stats: Sendable, Decodable {
        /// Connections accepted in all.
        let connections: Int
        /// Connections open now.
        let open: Int
        /// The most connections open at once.
        let maxOpen: Int
        /// Requests read.
        let requests: Int
        /// `/load` requests answered with a reset.
        let resets: Int
        /// What let `/many-headers` send the rest of its head: `"oks"` or `"timeout"`.
        let manyHeadersReleasedBy: String?
    }

    private let server: PythonServerProcess
    private let control = CurlTransport()

    private init(server: PythonServerProcess) {
        self.server = server
    }

    /// Launches a fresh server whose `/load` mode draws from `seed`.
    static func start(seed: Int = 1) async throws -> HostileServer {
        HostileServer(server: try await PythonServerProcess.start(script: "hostile_server.py", arguments: ["--seed", "\(seed)"]))
    }

    /// `http://127.0.0.1:<port>`.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(server.port)")! }

    /// The URL of `path` (with its query, if any) on this server.
    func url(_ path: String) -> URL { URL(string: "\(baseURL)\(path)")! }

    /// Stops the server process. Idempotent.
    func stop() { server.stop() }

    /// Waits until the server has set `event` (at most `timeout` seconds); returns whether it did.
    func awaitEvent(_ event: String, timeout: Int = 30) async throws -> Bool {
        let request = HTTPRequest(url: url("/await?event=\(event)&timeout=\(timeout)"), timeout: .seconds(timeout + 10))
        return try await control.send(request).status == 200
    }

    /// The server's counters.
    func stats() async throws -> Stats {
        let response = try await control.send(HTTPRequest(url: url("/stats"), timeout: .seconds(10)))
        return try JSONDecoder().decode(Stats.self, from: response.body)
    }
}

/// Runs `body` with a fresh hostile server and always stops it, even when `body` throws.
func withHostileServer<T>(seed: Int = 1, _ body: (HostileServer) async throws -> T) async throws -> T {
    let server = try await HostileServer.start(seed: seed)
    defer { server.stop() }
    return try await body(server)
}
#endif
