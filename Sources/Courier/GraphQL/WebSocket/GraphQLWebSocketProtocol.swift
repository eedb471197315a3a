/// The two GraphQL-over-WebSocket protocols, by their subprotocol names.
enum GraphQLWebSocketProtocol: String, Sendable, Hashable {
    /// The graphql-ws library's protocol (`subscribe`/`next`/`error`/`complete`, `ping`/`pong`).
    case transportWS = "graphql-transport-ws"
    /// subscriptions-transport-ws, the legacy one (`start`/`data`/`error`/`complete`/`stop`, `ka`).
    case legacyWS = "graphql-ws"
}
