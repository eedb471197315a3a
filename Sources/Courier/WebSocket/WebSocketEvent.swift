/// What a reconnecting WebSocket (``APIClient/webSocketEvents(_:options:reconnection:)``)
/// reports, in order.
public enum WebSocketEvent: Sendable {
    /// A connection is open (the first, or one after a drop): send through this socket, and
    /// send again what the server must hear on every connection (a subscription, a login).
    case connected(WebSocket)
    /// A message from the server, on the current connection.
    case message(WebSocketMessage)
    /// The connection ended in a way worth coming back from: it failed (`error`), or the
    /// server closed it with a code that asks for that (`closeCode`: 1001 going away, 1011,
    /// 1012 service restart, 1013 try again later, 1014). The next event comes after the
    /// reconnection policy's wait, once the connectivity monitor says online.
    case dropped(closeCode: WebSocketCloseCode?, error: NetworkError?)
}
