/// How subscriptions over a GraphQL WebSocket protocol run
/// (``GraphQLSubscriptionTransport/graphQLTransportWS``, ``GraphQLSubscriptionTransport/graphQLWS``,
/// ``GraphQLSubscriptionTransport/webSocket``): ``GraphQLConfiguration/webSocket``.
///
/// ```swift
/// configuration.graphQL.subscriptionTransport = .graphQLTransportWS
/// configuration.graphQL.webSocket.connectionParams = { ["tenant": .string("acme")] }
/// ```
public struct GraphQLWebSocketOptions: Sendable {
    /// When a dropped socket connects again (its live subscriptions are then subscribed
    /// again). Default ``WebSocketReconnection/default``.
    public var reconnection: WebSocketReconnection = .default
    /// How long the server has to answer `connection_init` with `connection_ack`; past it the
    /// socket is dropped and counts as a failed attempt. Default 10 s.
    public var acknowledgementTimeout = Duration.seconds(10)
    /// graphql-transport-ws only: when set, a `ping` message goes at this interval, and a
    /// `pong` that has not come back when the next is due drops the socket (it reconnects).
    /// Default nil (the server's pings are answered either way).
    public var keepAliveInterval: Duration?
    /// How long the socket stays open after its last subscription ended, for the next one to
    /// reuse. Default zero: it closes at once.
    public var linger = Duration.zero
    /// The `connection_init` payload's members, asked at every connection (so a reconnection
    /// sends fresh values). With a session, `Authorization` (`Bearer <access token>`) is added
    /// unless this gives one. Default nil.
    public var connectionParams: (@Sendable () async throws(NetworkError) -> [String: JSONValue])?
    /// The socket's own settings (sizes, compression, keep-alive pings, close timeout); its
    /// subprotocols are the transport's. Default ``WebSocketOptions/init()``.
    public var socket = WebSocketOptions()

    /// The defaults.
    public init() {}
}
