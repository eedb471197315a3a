import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import Courier

/// httpbin (from PyPI, a real server whose form and multipart parsing is Werkzeug's), run on an
/// ephemeral port of 127.0.0.1 by `httpbin_server.py` with the interpreter of the virtual
/// environment `.ci/run` makes at `<package root>/.build/venv`. Besides httpbin's routes
/// (`/post`, `/anything`, …) it answers `POST /courier/multipart` with what the parser found of
/// each file part (name, filename, content type, size, SHA-256).
///
/// A missing environment is an error, not a skip: these tests exist to run.
///
/// Thread safety: every stored property is a `let` of a `Sendable` type.
final class HTTPBinServer: Sendable {
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

    /// The package's root directory (this file is `Tests/CourierTests/Support/HTTPBinServer.swift`).
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

    /// What to run when httpbin is missing.
    private static var installHint: String {
        "run `bash .ci/run` (it makes the environment first), or in \(packageRoot.path): "
            + "`python3 -m venv .build/venv && .build/venv/bin/pip install httpbin==0.10.4`"
    }

    /// Starts httpbin and waits until it announces its port.
    static func start() async throws -> HTTPBinServer {
        let python = python
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw ServerProcessError.startupFailed("httpbin's virtual environment is missing (no \(python)): \(installHint)")
        }
        do {
            return HTTPBinServer(server: try await PythonServerProcess.start(script: "httpbin_server.py", python: python))
        } catch {
            throw ServerProcessError.startupFailed("httpbin did not start (\(error)); is it installed? \(installHint)")
        }
    }

    /// Stops the server. Idempotent.
    func stop() {
        server.stop()
    }
}

/// Runs `body` with a fresh httpbin and always stops it, even when `body` throws.
func withHTTPBin<T>(_ body: (HTTPBinServer) async throws -> T) async throws -> T {
    let server = try await HTTPBinServer.start()
    defer { server.stop() }
    return try await body(server)
}
