import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import Courier

// MARK: - Wire types

/// One response the scripted server will give (mirrors the Python `ResponseSpec`).
///
/// Only the fields that are set are sent; the server treats absent fields as
/// "not requested" (status defaults to 200, the body to empty).
struct ScriptedResponse: Sendable, Encodable {
    /// HTTP status code.
    var status: Int = 200
    /// Extra response headers. `Content-Length` is added by the server unless given here.
    var headers: [String: String]? = nil
    /// Body as UTF-8 text.
    var body: String? = nil
    /// Body as raw bytes (sent base64-encoded as `bodyBase64`).
    var bodyData: Data? = nil
    /// A body of this many `x` bytes.
    var bodySize: Int? = nil
    /// Seconds to sleep before responding (or before holding).
    var delay: Double? = nil
    /// Never respond; the server records a disconnect event when the client goes away.
    var hold: Bool? = nil
    /// Respond only once ``ScriptedServer/release(path:)`` was called on the path after this
    /// response began.
    var afterRelease: Bool? = nil
    /// A body sent in separate writes (see ``StreamSpec``).
    var stream: StreamSpec? = nil
    /// An event stream sent in pieces (see ``EventStreamSpec``).
    var events: EventStreamSpec? = nil
    /// Respond 200 with a JSON description of the request (method, path, query, headers, body).
    var echo: Bool? = nil

    /// Send the body one byte every this many seconds.
    var trickle: Double? = nil
    /// Header fields sent in this order after `headers`; a name may repeat.
    var headerList: [[String]]? = nil
    /// Send the body with chunked transfer coding (no `Content-Length`).
    var chunked: Bool? = nil
    /// `[name, value]`: serve this response only to requests whose header `name` is `value`;
    /// the others get ``otherwise``'s one element.
    var whenHeader: [String]? = nil
    /// What requests that do not match ``whenHeader`` get (one element; an array to allow the
    /// recursion).
    var otherwise: [ScriptedResponse]? = nil

    private enum CodingKeys: String, CodingKey {
        case status, headers, body, bodySize, delay, hold, afterRelease, stream, events, echo, trickle, headerList, chunked, whenHeader, otherwise
        case bodyData = "bodyBase64"
    }

    /// This response to requests whose `name` header is `value`; `otherwise` to the others.
    func when(header name: String, is value: String, otherwise: ScriptedResponse) -> ScriptedResponse {
        var conditional = self
        conditional.whenHeader = [name, value]
        conditional.otherwise = [otherwise]
        return conditional
    }

    /// This response, sent after `delay` seconds.
    func with(delay: Double) -> ScriptedResponse {
        var delayed = self
        delayed.delay = delay
        return delayed
    }

    /// A response with `status`, no body.
    static func status(_ status: Int, headers: [String: String]? = nil) -> ScriptedResponse {
        ScriptedResponse(status: status, headers: headers)
    }

    /// A response with a text body.
    static func text(_ status: Int, _ body: String, headers: [String: String]? = nil) -> ScriptedResponse {
        ScriptedResponse(status: status, headers: headers, body: body)
    }

    /// A JSON response; `Content-Type: application/json` is added unless `headers` sets it.
    static func json(_ status: Int, _ body: String, headers: [String: String] = [:]) -> ScriptedResponse {
        var all = headers
        if !all.keys.contains(where: { $0.caseInsensitiveCompare("Content-Type") == .orderedSame }) {
            all["Content-Type"] = "application/json"
        }
        return ScriptedResponse(status: status, headers: all, body: body)
    }

    /// A response with a raw-bytes body.
    static func data(_ status: Int, _ body: Data, headers: [String: String]? = nil) -> ScriptedResponse {
        ScriptedResponse(status: status, headers: headers, bodyData: body)
    }

    /// A response whose body is `size` bytes of `x`.
    static func sized(_ size: Int, status: Int = 200, headers: [String: String]? = nil) -> ScriptedResponse {
        ScriptedResponse(status: status, headers: headers, bodySize: size)
    }

    /// A chunked response whose body is `size` bytes of `x`.
    static func chunked(_ size: Int, status: Int = 200) -> ScriptedResponse {
        ScriptedResponse(status: status, bodySize: size, chunked: true)
    }

    /// A redirect with `status` to `location`.
    static func redirect(_ status: Int, to location: String) -> ScriptedResponse {
        ScriptedResponse(status: status, headers: ["Location": location])
    }

    /// A response sent only after `seconds`.
    static func delayed(
        _ seconds: Double, status: Int = 200, body: String? = nil, headers: [String: String]? = nil
    ) -> ScriptedResponse {
        ScriptedResponse(status: status, headers: headers, body: body, delay: seconds)
    }

    /// A response sent only once the test calls ``ScriptedServer/release(path:)`` on its path.
    static func afterRelease(status: Int = 200, body: String? = nil) -> ScriptedResponse {
        ScriptedResponse(status: status, body: body, afterRelease: true)
    }

    /// A 200 whose `size`-byte body arrives one byte every `interval` seconds: never idle for
    /// long, so only a whole-exchange deadline ends it early.
    static func trickled(_ size: Int, every interval: Double) -> ScriptedResponse {
        ScriptedResponse(bodySize: size, trickle: interval)
    }

    /// Never respond; keep the connection open until the client disconnects.
    static var hold: ScriptedResponse { ScriptedResponse(hold: true) }

    /// Respond 200 with a JSON description of the request.
    static var echo: ScriptedResponse { ScriptedResponse(echo: true) }
}

/// A request as the scripted server saw it on the wire.
struct ReceivedRequest: Sendable, Decodable {
    /// Request method, e.g. `GET`.
    let method: String
    /// Request target exactly as on the request line (path plus query string).
    let path: String
    /// Header fields as `[name, value]` pairs, in the order and case received.
    let headers: [[String]]
    /// The request body (de-chunked if it was sent chunked); empty for one over 16 MiB, which
    /// the server records by ``bodyLength`` and ``bodySHA256`` only.
    let body: Data
    /// How many body bytes arrived.
    let bodyLength: Int
    /// The SHA-256 of the body, in lower-case hex.
    let bodySHA256: String
    /// Whether the server answered it with the remembered response of an earlier request with
    /// the same `Idempotency-Key` (without processing it).
    let replayed: Bool

    private enum CodingKeys: String, CodingKey {
        case method, path, headers, bodyBase64, bodyLength, bodySha256, replayed
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        method = try container.decode(String.self, forKey: .method)
        path = try container.decode(String.self, forKey: .path)
        headers = try container.decode([[String]].self, forKey: .headers)
        let base64 = try container.decode(String.self, forKey: .bodyBase64)
        guard let decoded = Data(base64Encoded: base64) else {
            throw DecodingError.dataCorruptedError(
                forKey: .bodyBase64, in: container, debugDescription: "invalid base64 body")
        }
        body = decoded
        bodyLength = try container.decode(Int.self, forKey: .bodyLength)
        bodySHA256 = try container.decode(String.self, forKey: .bodySha256)
        replayed = try container.decodeIfPresent(Bool.self, forKey: .replayed) ?? false
    }

    /// The first value of header `name`, compared case-insensitively.
    func header(_ name: String) -> String? {
        headers.first { $0.count == 2 && $0[0].caseInsensitiveCompare(name) == .orderedSame }?[1]
    }

    /// The body as UTF-8 text (lossy).
    var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// What the scripted server saw of one `Idempotency-Key`.
struct IdempotencyRecord: Sendable, Decodable, Equatable {
    /// How many requests with the key were really processed (their response remembered).
    let processed: Int
    /// How many requests with the key arrived, replayed and rejected ones included.
    let seen: Int
}

/// Errors thrown by ``ScriptedServer``'s control API (starting it throws
/// ``ServerProcessError``).
enum ScriptedServerError: Error, CustomStringConvertible {
    /// A control request got an unexpected status.
    case controlFailed(endpoint: String, status: Int, body: String)
    /// A `wait` control request timed out on the server.
    case timedOut(String)

    var description: String {
        switch self {
        case .controlFailed(let endpoint, let status, let body):
            return "ScriptedServer: control \(endpoint) answered \(status): \(body)"
        case .timedOut(let what):
            return "ScriptedServer: timed out waiting for \(what)"
        }
    }
}

// MARK: - Server

/// Drives `scripted_server.py`, a Python HTTP/1.1 test server with scriptable responses.
///
/// Each instance owns one server process on an ephemeral port of 127.0.0.1, which dies with us
/// (see ``PythonServerProcess``).
///
/// Thread safety: every stored property is a `let` of a `Sendable` type.
final class ScriptedServer: Sendable {
    /// The server process.
    private let server: PythonServerProcess
    /// Ephemeral session used only for control requests.
    private let session: URLSession

    /// The port the server listens on (127.0.0.1).
    var port: Int { server.port }

    /// `http://127.0.0.1:<port>`.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    private init(server: PythonServerProcess) {
        self.server = server
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 60
        self.session = URLSession(configuration: configuration)
    }

    deinit {
        stop()
    }

    /// Launches a fresh server and waits for it to announce its port.
    static func start() async throws -> ScriptedServer {
        ScriptedServer(server: try await PythonServerProcess.start(script: "scripted_server.py"))
    }

    /// Stops the server process. Idempotent; also called from `deinit`.
    ///
    /// Does not wait for the process to exit; it normally is gone within milliseconds.
    func stop() {
        // Cancel, never invalidate: a control call a test left behind would trap on an
        // invalidated session ("Session invalidated"); on a stopped server it just fails.
        session.getAllTasks { tasks in tasks.forEach { $0.cancel() } }
        server.stop()
    }

    /// Stops the server and waits until its process has exited (its port is closed).
    func stopAndWait() {
        stop()
        server.stopAndWait()
    }

    /// Whether the server process is still alive.
    var isRunning: Bool { server.isRunning }

    // MARK: Control API

    /// Scripts `responses` for requests to `path` (and `method`, if given).
    ///
    /// Responses are served in order; the last one repeats. Re-scripting replaces
    /// the previous script (all methods' scripts when `method` is nil).
    func script(_ path: String, method: String? = nil, _ responses: [ScriptedResponse]) async throws {
        struct Script: Encodable {
            let path: String
            let method: String?
            let responses: [ScriptedResponse]
        }
        let payload = try JSONEncoder().encode(Script(path: path, method: method, responses: responses))
        _ = try await control("POST", "script", body: payload)
    }

    /// Every request received so far (optionally only those to `path`, ignoring the query), in arrival order.
    func requests(path: String? = nil) async throws -> [ReceivedRequest] {
        let query = path.map { [URLQueryItem(name: "path", value: $0)] } ?? []
        let (data, _) = try await control("GET", "requests", query: query)
        return try JSONDecoder().decode([ReceivedRequest].self, from: data)
    }

    /// Waits until at least `count` requests to `path` have arrived and returns all requests to `path`.
    ///
    /// Throws ``ScriptedServerError/timedOut(_:)`` after `timeout` seconds.
    func waitForRequests(path: String, count: Int, timeout: Double = 30) async throws -> [ReceivedRequest] {
        let query = [
            URLQueryItem(name: "path", value: path),
            URLQueryItem(name: "count", value: String(count)),
            URLQueryItem(name: "timeout", value: String(timeout)),
        ]
        let (data, status) = try await control(
            "GET", "wait", query: query, allowedStatuses: [200, 504], requestTimeout: timeout + 10)
        if status == 504 {
            throw ScriptedServerError.timedOut("\(count) request(s) to \(path)")
        }
        return try JSONDecoder().decode([ReceivedRequest].self, from: data)
    }

    /// Waits until a held request on `path` saw its client disconnect.
    ///
    /// Returns `false` if that did not happen within `timeout` seconds.
    func waitForDisconnect(path: String, timeout: Double = 30) async throws -> Bool {
        let query = [
            URLQueryItem(name: "path", value: path),
            URLQueryItem(name: "timeout", value: String(timeout)),
        ]
        let (_, status) = try await control(
            "GET", "wait-disconnect", query: query, allowedStatuses: [200, 504], requestTimeout: timeout + 10)
        return status == 200
    }

    /// Clears all scripts, recorded requests, disconnect events and idempotency state.
    /// Lets a gated ``StreamSpec`` response on `path` send its next chunk, or an
    /// ``ScriptedResponse/afterRelease(status:body:)`` response answer.
    func release(path: String) async throws {
        _ = try await control("POST", "release", query: [URLQueryItem(name: "path", value: path)])
    }

    func reset() async throws {
        _ = try await control("POST", "reset")
    }

    /// Per `Idempotency-Key` seen so far: how many of its requests were processed and how many
    /// arrived.
    func idempotencyKeys() async throws -> [String: IdempotencyRecord] {
        let (data, _) = try await control("GET", "idempotency")
        return try JSONDecoder().decode([String: IdempotencyRecord].self, from: data)
    }

    /// `http://127.0.0.1:<port>` of the switchable listener, a second port served like
    /// ``baseURL`` that can be taken offline. The first call opens it; every call leaves it
    /// `up` or down as asked (see ``setSwitchable(up:)``). The port never changes.
    func switchableURL(up: Bool = true) async throws -> URL {
        let port = try await switchable(up: up)
        return URL(string: "http://127.0.0.1:\(port)")!
    }

    /// Takes the switchable listener offline (`up == false`: new connections are refused and
    /// every open connection on it, idle or mid-request, is shut down) or back online on the
    /// same port. Opens it first if needed. A no-op if it already is in that state.
    func setSwitchable(up: Bool) async throws {
        _ = try await switchable(up: up)
    }

    /// Sets the switchable listener's state; returns its port.
    private func switchable(up: Bool) async throws -> Int {
        struct Request: Encodable { let up: Bool }
        struct Reply: Decodable { let port: Int }
        let (data, _) = try await control("POST", "switchable", body: try JSONEncoder().encode(Request(up: up)))
        return try JSONDecoder().decode(Reply.self, from: data).port
    }

    /// Sends one control request; returns the body and status.
    private func control(
        _ method: String,
        _ endpoint: String,
        query: [URLQueryItem] = [],
        body: Data? = nil,
        allowedStatuses: Set<Int> = [200],
        requestTimeout: Double = 30
    ) async throws -> (Data, Int) {
        var components = URLComponents()
        components.scheme = "http"
        components.host = "127.0.0.1"
        components.port = port
        components.path = "/__control/\(endpoint)"
        if !query.isEmpty {
            components.queryItems = query
            // URLComponents leaves "+" alone, but the server's parse_qs reads it as a space.
            components.percentEncodedQuery = components.percentEncodedQuery?
                .replacingOccurrences(of: "+", with: "%2B")
        }

        var request = URLRequest(url: components.url!)
        request.httpMethod = method
        request.timeoutInterval = requestTimeout
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? -1
        guard allowedStatuses.contains(status) else {
            throw ScriptedServerError.controlFailed(
                endpoint: endpoint, status: status, body: String(decoding: data, as: UTF8.self))
        }
        return (data, status)
    }
}

/// Runs `body` with a fresh server and always stops it, even when `body` throws.
func withScriptedServer<T>(_ body: (ScriptedServer) async throws -> T) async throws -> T {
    let server = try await ScriptedServer.start()
    do {
        let result = try await body(server)
        server.stop()
        return result
    } catch {
        server.stop()
        throw error
    }
}
