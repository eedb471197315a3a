#if canImport(CCurl)
import Foundation
@testable import Courier

/// Drives `websocket_peer.py`, a raw-socket WebSocket peer whose paths each play one scenario
/// (see the script's docstring), and reads its log of what it saw from the client.
///
/// Thread safety: every stored property is a `let` of a `Sendable` type.
final class WebSocketPeer: Sendable {
    /// One thing the peer saw on a connection.
    struct Event: Sendable, Decodable, Equatable {
        let event: String
        let code: Int?
        let reason: String?
        let payload: String?
        let opcode: Int?
        let length: Int?
        let frames: Int?
    }

    private let server: PythonServerProcess
    private let control = CurlTransport()

    private init(server: PythonServerProcess) {
        self.server = server
    }

    static func start() async throws -> WebSocketPeer {
        WebSocketPeer(server: try await PythonServerProcess.start(script: "websocket_peer.py"))
    }

    /// `http://127.0.0.1:<port>`.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(server.port)")! }

    /// `ws://127.0.0.1:<port><path>`, its connection logged under `id`.
    func url(_ path: String, id: String) -> URL {
        URL(string: "ws://127.0.0.1:\(server.port)\(path)\(path.contains("?") ? "&" : "?")id=\(id)")!
    }

    /// What the peer saw on the connections logged under `id`, once it saw `event` (at most
    /// 60 s: a loaded machine is slow, and a test only waits that long when it fails).
    func log(_ id: String, waitingFor event: String? = nil) async throws -> [Event] {
        let wait = event.map { "&wait=\($0)" } ?? ""
        let response = try await control.send(HTTPRequest(url: URL(string: "\(baseURL)/log?id=\(id)\(wait)")!, timeout: .seconds(90)))
        return try JSONDecoder().decode([Event].self, from: response.body)
    }

    func stop() { server.stop() }
}

/// Runs `body` with a fresh peer and always stops it.
func withWebSocketPeer<T>(_ body: (WebSocketPeer) async throws -> T) async throws -> T {
    let peer = try await WebSocketPeer.start()
    defer { peer.stop() }
    return try await body(peer)
}
#endif
