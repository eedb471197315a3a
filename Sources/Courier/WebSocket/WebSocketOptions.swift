/// How ``APIClient/webSocket(_:options:)`` opens and runs a WebSocket; every default is
/// documented where it is declared.
public struct WebSocketOptions: Sendable {
    /// Subprotocols offered in `Sec-WebSocket-Protocol`, most wanted first (e.g.
    /// `graphql-transport-ws`). The server picks one or none: ``WebSocket/subprotocol``. A
    /// server that picks one not offered fails the handshake. Default none.
    public var subprotocols: [String] = []
    /// The largest frame payload accepted from the server; a larger one closes the connection
    /// with 1009. Default 16 MiB.
    public var maxFrameSize = 16 << 20
    /// The largest message accepted (its fragments together); a larger one closes with 1009.
    /// Default 16 MiB.
    public var maxMessageSize = 16 << 20
    /// Outgoing messages are cut into frames of at most this many bytes. Default 1 MiB.
    public var outgoingFrameSize = 1 << 20
    /// Received bytes held for a reader that is behind; past this the socket is not read (the
    /// server's sends slow down), until the reader catches up. Default 1 MiB.
    public var receiveBufferSize = 1 << 20
    /// Bytes of sent messages not yet on the wire; past this ``WebSocket/send(_:)`` waits.
    /// Default 1 MiB.
    public var sendBufferSize = 1 << 20
    /// Whether to offer `permessage-deflate` (RFC 7692): when the server accepts, messages are
    /// compressed both ways with zlib. Default `true`, as OkHttp. (On Apple platforms
    /// URLSession decides; it does not compress.)
    public var compression = true
    /// When set, a ping is sent at this interval; if the pong of one has not arrived when the
    /// next is due, the peer is taken for dead and the connection fails with
    /// ``NetworkError/timeout(_:underlying:)`` (OkHttp's rule). Default nil: no keep-alive.
    public var pingInterval: Duration?
    /// How long ``WebSocket/close(_:reason:)`` waits for the server's close frame before it
    /// drops the connection. Default 5 s.
    public var closeTimeout = Duration.seconds(5)

    /// The defaults.
    public init() {}
}
