#if canImport(Darwin)
import Foundation

/// ``WebSocket`` on Apple platforms: URLSession's WebSocket task frames, answers pings, joins
/// fragments and runs the close handshake; this only maps its calls and errors to Courier's.
final class URLSessionWebSocketBackend: WebSocketBackend, @unchecked Sendable {
    // Invariant: `task` is URLSession's (safe from any thread); `state` only under its lock.
    private struct State {
        var awaitingPong = false
        var ended = false
        var endActions: [@Sendable () -> Void] = []
    }

    private let task: URLSessionWebSocketTask
    private let state = Locked(State())

    init(task: URLSessionWebSocketTask, options: WebSocketOptions) {
        self.task = task
        task.maximumMessageSize = max(1, options.maxMessageSize)
    }

    func receive() async throws(NetworkError) -> WebSocketMessage? {
        let task = self.task
        let message: URLSessionWebSocketTask.Message
        do {
            message = try await withTaskCancellationHandler {
                try await task.receive()
            } onCancel: {
                task.cancel(with: .goingAway, reason: nil)
            }
        } catch {
            end()
            if Task.isCancelled { throw .cancelled }
            if task.closeCode != .invalid { return nil }
            if let error = error as? URLError { throw NetworkError(error, url: task.originalRequest?.url) }
            throw .unknown(underlying: error)
        }
        switch message {
        case .string(let text): return .text(text)
        case .data(let data): return .binary(data)
        @unknown default: throw .invalidResponse("URLSession delivered a WebSocket message of an unknown kind")
        }
    }

    func send(_ message: WebSocketMessage) async throws(NetworkError) {
        let outgoing: URLSessionWebSocketTask.Message
        switch message {
        case .text(let text): outgoing = .string(text)
        case .binary(let data): outgoing = .data(data)
        }
        do {
            try await task.send(outgoing)
        } catch {
            if let error = error as? URLError { throw NetworkError(error, url: task.originalRequest?.url) }
            throw .unknown(underlying: error)
        }
    }

    func ping() -> Bool {
        let sent = state.withLock { state -> Bool in
            guard !state.ended, !state.awaitingPong else { return false }
            state.awaitingPong = true
            return true
        }
        guard sent else { return false }
        task.sendPing { [state] error in
            if error == nil { state.withLock { $0.awaitingPong = false } }
        }
        return true
    }

    func close(code: WebSocketCloseCode, reason: String) {
        let code = URLSessionWebSocketTask.CloseCode(rawValue: Int(code.rawValue)) ?? .normalClosure
        task.cancel(with: code, reason: Data(reason.utf8.prefix(123)))
    }

    func abort(_ error: NetworkError) {
        task.cancel()
        end()
    }

    var closeStatus: (code: WebSocketCloseCode?, reason: String)? {
        guard task.closeCode != .invalid else { return nil }
        return (WebSocketCloseCode(rawValue: UInt16(clamping: task.closeCode.rawValue)), task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? "")
    }

    func onEnd(_ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.ended { return true }
            state.endActions.append(action)
            return false
        }
        if now { action() }
    }

    /// URLSession masks with its own keys.
    func useRandom(_ random: any RandomSource) {}

    private func end() {
        let actions = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.ended else { return [] }
            state.ended = true
            defer { state.endActions = [] }
            return state.endActions
        }
        for action in actions { action() }
    }
}

extension URLSessionTransport {
    /// Opens a WebSocket with URLSession's WebSocket task; see
    /// ``HTTPTransport/upgrade(_:webSocket:)``. URLSession writes the handshake's own fields
    /// (its key, the version); the request's others are sent, the subprotocols among them.
    public func upgrade(_ request: HTTPRequest, webSocket options: WebSocketOptions) async throws(NetworkError) -> HTTPResponse {
        try request.validate()
        var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        components?.scheme = request.url.scheme?.lowercased() == "https" ? "wss" : "ws"
        guard let url = components?.url else { throw .invalidURL(request.url.absoluteString) }
        var urlRequest = URLRequest(url: url)
        urlRequest.timeoutInterval = (request.timeout ?? Self.defaultTimeout).inSeconds.rounded(.up)
        let handshakeFields: Set<String> = ["upgrade", "connection", "sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions"]
        for field in request.headers where !handshakeFields.contains(field.name.lowercased()) {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
        }
        let task = webSocketTask(with: urlRequest)
        task.resume()
        // URLSession tells the end of the handshake only to its delegate; the first pong comes
        // after it, or the handshake's failure instead.
        let failure: (any Error)? = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in task.sendPing { continuation.resume(returning: $0) } }
        } onCancel: {
            task.cancel()
        }
        if Task.isCancelled { throw .cancelled }
        guard let http = task.response as? HTTPURLResponse else {
            task.cancel()
            if let error = failure as? URLError { throw NetworkError(error, url: request.url) }
            throw .unknown(underlying: failure)
        }
        var response = URLSessionExchange.convert(http, body: Data())
        if http.statusCode == 101, failure == nil {
            response.upgradedConnection = URLSessionWebSocketBackend(task: task, options: options)
        } else {
            task.cancel()
        }
        return response
    }
}
#endif
