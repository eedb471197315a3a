import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The scripted server's control API (`/__control/…`), the part these tests use.
struct ScriptedControl: Sendable {
    /// One scripted response (the Python server's `ResponseSpec`): only the fields set are sent.
    struct Reply: Encodable, Sendable {
        var status = 200
        var headers: [String: String]?
        var body: String?
        var headerList: [[String]]?
        var stream: Stream?
        var hold: Bool?
        var whenHeader: [String]?
        var otherwise: [Reply]?

        /// A body sent in `chunks` writes of `chunkSize` bytes; with `gated`, each write after
        /// the first waits for a ``ScriptedControl/release(path:)``.
        struct Stream: Encodable, Sendable {
            var chunks: Int
            var chunkSize: Int
            var gated: Bool?
        }

        static func json(_ status: Int, _ body: String) -> Reply {
            Reply(status: status, headers: ["Content-Type": "application/json"], body: body)
        }

        /// This reply to requests whose header `name` is `value`; `otherwise` to the others.
        func when(header name: String, is value: String, otherwise: Reply) -> Reply {
            var reply = self
            reply.whenHeader = [name, value]
            reply.otherwise = [otherwise]
            return reply
        }
    }

    /// A request as the server saw it.
    struct Received: Decodable, Sendable {
        let method: String
        let path: String
        let headers: [[String]]
        let bodyBase64: String

        var body: Data { Data(base64Encoded: bodyBase64) ?? Data() }

        func header(_ name: String) -> String? {
            headers.first { $0.count == 2 && $0[0].caseInsensitiveCompare(name) == .orderedSame }?[1]
        }
    }

    let baseURL: URL

    /// Scripts `replies` for `path` (served in order, the last repeating).
    func script(_ path: String, method: String? = nil, _ replies: [Reply]) async throws {
        struct Script: Encodable { let path: String; let method: String?; let responses: [Reply] }
        _ = try await control("POST", "script", body: try JSONEncoder().encode(Script(path: path, method: method, responses: replies)))
    }

    /// The requests to `path` so far (the query ignored), in arrival order.
    func requests(path: String) async throws -> [Received] {
        try JSONDecoder().decode([Received].self, from: try await control("GET", "requests", query: "path=\(path)"))
    }

    /// Waits (on the server, up to 30 s) until `count` requests to `path` have arrived.
    func waitForRequests(path: String, count: Int) async throws {
        _ = try await control("GET", "wait", query: "path=\(path)&count=\(count)&timeout=30")
    }

    /// Waits (on the server, up to 30 s) until the client of a held request on `path` went
    /// away; `false` if it did not.
    func waitForDisconnect(path: String) async throws -> Bool {
        do {
            _ = try await control("GET", "wait-disconnect", query: "path=\(path)&timeout=30")
            return true
        } catch is LoopbackServer.StartFailure {
            return false
        }
    }

    /// Lets the next gated chunk on `path` go out.
    func release(path: String) async throws {
        _ = try await control("POST", "release", query: "path=\(path)")
    }

    private func control(_ method: String, _ endpoint: String, query: String? = nil, body: Data? = nil) async throws -> Data {
        var url = baseURL.appendingPathComponent("__control/\(endpoint)").absoluteString
        if let query { url += "?" + query }
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.httpBody = body
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        let (data, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw LoopbackServer.StartFailure(description: "control \(endpoint): \(String(decoding: data, as: UTF8.self))")
        }
        return data
    }
}
