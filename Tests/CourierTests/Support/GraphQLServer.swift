import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import Courier

/// Strawberry (PyPI `strawberry-graphql`, served by `uvicorn`), run on an ephemeral port of
/// 127.0.0.1 by `graphql_server.py` with the virtual environment's interpreter (`.build/venv`,
/// which `.ci/run` makes). Serves `/graphql` (GraphQL over HTTP, multipart subscriptions,
/// automatic persisted queries) and `/__stats` (what it executed and saw).
///
/// A missing environment is an error, not a skip: these tests exist to run.
final class GraphQLServer: Sendable {
    /// What the server saw.
    struct Stats: Decodable {
        /// Resolver runs by field (`hero`, `slowHero`, `secret`, `addReview`, `countdown`, …).
        let executions: [String: Int]
        /// Requests that carried a document.
        let documents: Int
        /// Requests that carried only a persisted query's hash.
        let hashOnly: Int
        /// The `Authorization` of each `secret` resolution, in order.
        let authorizations: [String]
        /// Token refreshes answered.
        let refreshes: Int
    }

    private let server: PythonServerProcess

    /// `http://127.0.0.1:<port>`.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(server.port)")! }

    private init(server: PythonServerProcess) {
        self.server = server
    }

    deinit {
        server.stop()
    }

    /// Starts the server and waits until it announces its port.
    static func start() async throws -> GraphQLServer {
        let python = HTTPBinServer.python
        let hint = "run `bash .ci/run` (it makes the environment), or `.build/venv/bin/pip install strawberry-graphql uvicorn starlette`"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw ServerProcessError.startupFailed("the virtual environment is missing (no \(python)): \(hint)")
        }
        do {
            return GraphQLServer(server: try await PythonServerProcess.start(script: "graphql_server.py", python: python))
        } catch {
            throw ServerProcessError.startupFailed("the GraphQL server did not start (\(error)); \(hint)")
        }
    }

    /// What the server has seen so far.
    func stats() async throws -> Stats {
        let (data, _) = try await URLSession.shared.data(from: baseURL.appendingPathComponent("__stats"))
        return try JSONDecoder().decode(Stats.self, from: data)
    }

    /// Stops the server. Idempotent.
    func stop() {
        server.stop()
    }
}

/// Runs `body` with a fresh GraphQL server and always stops it, even when `body` throws.
func withGraphQLServer<T>(_ body: (GraphQLServer) async throws -> T) async throws -> T {
    let server = try await GraphQLServer.start()
    defer { server.stop() }
    return try await body(server)
}
