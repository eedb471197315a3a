import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import Courier

/// A server from PyPI run on an ephemeral port of 127.0.0.1 by one of the Support scripts,
/// with the interpreter of the virtual environment at `<package root>/.build/venv`, which the
/// tests make on first use (``TestVirtualEnvironment``):
/// - `httpbin_server.py`: httpbin (a real server whose form and multipart parsing is
///   Werkzeug's), plus `POST /courier/multipart`, which reports each file part it parsed;
/// - `graphql_server.py`: Strawberry on uvicorn (GraphQL over HTTP, multipart subscriptions,
///   persisted queries) and `/__stats` (``GraphQLStats``);
/// - `websockets_server.py`: Python's `websockets` server (echo, fragmented echo, a subprotocol).
///
/// An environment that cannot be made (no python3, no network for pip) skips the test
/// (``TestTool/unavailable(_:)``); under `COURIER_REQUIRE_TEST_TOOLS=1` (CI) it fails it.
///
/// Thread safety: every stored property is a `let` of a `Sendable` type.
final class VenvServer: Sendable {
    /// The server process.
    private let server: PythonServerProcess

    /// `http://127.0.0.1:<port>`.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(server.port)")! }

    private init(server: PythonServerProcess) {
        self.server = server
    }

    deinit {
        server.stop()
    }

    /// The package's root directory (this file is `Tests/CourierTests/Support/VenvServer.swift`).
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Starts `script` and waits until it announces its port.
    static func start(script: String, arguments: [String] = []) async throws -> VenvServer {
        let python = try await TestVirtualEnvironment.python()
        do {
            return VenvServer(server: try await PythonServerProcess.start(script: script, arguments: arguments, python: python))
        } catch {
            throw ServerProcessError.startupFailed(
                "\(script) did not start with \(python) (\(error)); remove \(TestVirtualEnvironment.directory.path) to have it made again")
        }
    }

    /// Stops the server. Idempotent.
    func stop() {
        server.stop()
    }
}

/// Runs `body` with a fresh httpbin and always stops it, even when `body` throws.
func withHTTPBin<T>(_ body: (VenvServer) async throws -> T) async throws -> T {
    let server = try await VenvServer.start(script: "httpbin_server.py")
    defer { server.stop() }
    return try await body(server)
}

/// Runs `body` with a fresh GraphQL server (Strawberry) and always stops it, even when `body` throws.
func withGraphQLServer<T>(_ body: (VenvServer) async throws -> T) async throws -> T {
    let server = try await VenvServer.start(script: "graphql_server.py")
    defer { server.stop() }
    return try await body(server)
}

/// Runs `body` with a fresh `websockets` server (over TLS with `certificates`' server chain
/// when given) and always stops it, even when `body` throws.
func withWebSocketsServer<T>(tls certificates: TestCertificates? = nil, _ body: (VenvServer) async throws -> T) async throws -> T {
    let arguments = certificates.map { ["--cert", $0.serverChainFile, "--key", $0.serverKeyFile] } ?? []
    let server = try await VenvServer.start(script: "websockets_server.py", arguments: arguments)
    defer { server.stop() }
    return try await body(server)
}
