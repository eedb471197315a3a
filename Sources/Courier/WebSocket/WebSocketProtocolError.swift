/// Why the peer's bytes broke the WebSocket protocol, and the code the connection is closed
/// with (1002, 1007, 1009).
struct WebSocketProtocolError: Error, Sendable, Equatable {
    let code: WebSocketCloseCode
    let reason: String
}
