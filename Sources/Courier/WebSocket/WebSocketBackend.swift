import Foundation

/// One open WebSocket under ``WebSocket``: Courier's own framing over libcurl's socket
/// (``WebSocketChannel``), or URLSession's task on Apple platforms.
protocol WebSocketBackend: UpgradedConnection {
    /// The next message; nil once the close handshake is over. Throws when the connection
    /// failed, and ``NetworkError/cancelled`` (having started the close) when the task is
    /// cancelled.
    func receive() async throws(NetworkError) -> WebSocketMessage?
    /// Sends `message`; waits while the send buffer is full.
    func send(_ message: WebSocketMessage) async throws(NetworkError)
    /// Sends a ping; returns false when the pong of the last one has not arrived (the peer is
    /// taken for dead) or the connection is over.
    func ping() -> Bool
    /// Starts the close handshake (nothing if it was started).
    func close(code: WebSocketCloseCode, reason: String)
    /// Ends the connection now, with `error` for the reader unless it ended already.
    func abort(_ error: NetworkError)
    /// The close frame the server sent (its code and reason) once the connection is over.
    var closeStatus: (code: WebSocketCloseCode?, reason: String)? { get }
    /// Called once when the connection is over, whichever way.
    func onEnd(_ action: @escaping @Sendable () -> Void)
    /// The source of mask keys (the client's), set before the first send.
    func useRandom(_ random: any RandomSource)
}
