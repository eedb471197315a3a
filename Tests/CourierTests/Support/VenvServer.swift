import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import Courier

/// A server from PyPI run on an ephemeral port of 127.0.0.1 by one of the Support scripts,
/// with the interpreter of the virtual environment `.ci/run` makes at
/// `<package root>/.build/venv`:
/// - `httpbin_server.py`: httpbin (a real server whose form and multipart parsing is
///   Werkzeug's), plus `POST /courier/multipart`, which reports each file part it parsed;
/// - `graphql_server.py`: Strawberry on uvicorn (GraphQL over HTTP, multipart subscriptions,
///   persisted queries) and `/__stats` (``GraphQLStats``).
///
/// A missing environment is an error, not a skip: these tests exist to run.
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

    /// The virtual environment's interpreter: `$COURIER_HTTPBIN_PYTHON`, else
    /// `<package root>/.build/venv/bin/python`.
    static var python: String {
        ProcessInfo.processInfo.environment["COURIER_HTTPBIN_PYTHON"]
            ?? packageRoot.appendingPathComponent(".build/venv/bin/python").path
    }

    /// What to run when the environment or a package is missing.
    private static var installHint: String {
        "run `bash .ci/run` (it makes the environment first), or in \(packageRoot.path): `python3 -m venv .build/venv && "
            + ".build/venv/bin/pip install httpbin==0.10.4 strawberry-graphql==0.341.2 uvicorn==0.54.0 starlette==1.10.0`"
    }

    /// Starts `script` and waits until it announces its port.
    static func start(script: String) async throws -> VenvServer {
        let python = python
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw ServerProcessError.startupFailed("the virtual environment is missing (no \(python)): \(installHint)")
        }
        do {
            return VenvServer(server: try await PythonServerProcess.start(script: script, python: python))
        } catch {
            throw ServerProcessError.startupFailed("\(script) did not start (\(error)); is the environment complete? \(installHint)")
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
