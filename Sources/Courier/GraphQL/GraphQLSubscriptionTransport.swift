/// How ``ClientGraphQL/subscribe(_:headers:options:stallTimeout:maxPartBytes:)`` reaches the
/// endpoint's subscriptions: ``GraphQLConfiguration/subscriptionTransport``.
///
/// ```swift
/// configuration.graphQL.subscriptionTransport = .serverSentEvents
/// ```
///
/// A struct with static members rather than an enum, so that more protocols can be added
/// without breaking a `switch` of yours.
public struct GraphQLSubscriptionTransport: Sendable, Hashable, CustomStringConvertible {
    /// The protocols spoken.
    enum Kind: Sendable, Hashable {
        case multipartHTTP
        case serverSentEvents
        case webSocket([GraphQLWebSocketProtocol])
    }

    let kind: Kind

    /// Apollo's multipart protocol over HTTP: one `POST` answered by a `multipart/mixed` body
    /// of results (Apollo Router, Apollo Server, Strawberry, graphql-yoga). The default.
    public static let multipartHTTP = GraphQLSubscriptionTransport(kind: .multipartHTTP)

    /// graphql-sse in its distinct-connections mode: one `POST` with
    /// `Accept: text/event-stream` per subscription, answered by `next` events (a result each)
    /// and one `complete` event, which ends the sequence (no reconnection after it). A
    /// connection that breaks before `complete` subscribes again, as the graphql-sse client
    /// does (graphql-yoga, Strawberry, Ariadne, the `graphql-sse` server).
    public static let serverSentEvents = GraphQLSubscriptionTransport(kind: .serverSentEvents)

    /// graphql-ws's protocol over one WebSocket per endpoint and signed-in identity (subprotocol
    /// `graphql-transport-ws`: Apollo Server, graphql-yoga, Hasura, Strawberry, Ariadne): every
    /// subscription multiplexed on it, `connection_init` carrying the session's token, a drop
    /// reconnected (``GraphQLConfiguration/webSocket``).
    public static let graphQLTransportWS = GraphQLSubscriptionTransport(kind: .webSocket([.transportWS]))

    /// subscriptions-transport-ws, the legacy protocol (subprotocol `graphql-ws`), run as
    /// ``graphQLTransportWS`` is.
    public static let graphQLWS = GraphQLSubscriptionTransport(kind: .webSocket([.legacyWS]))

    /// Both WebSocket protocols offered (`graphql-transport-ws` first); the one the server
    /// picks is spoken.
    public static let webSocket = GraphQLSubscriptionTransport(kind: .webSocket([.transportWS, .legacyWS]))

    /// The protocol's name: `multipart-http`, `graphql-sse`, or the WebSocket subprotocols.
    public var description: String {
        switch kind {
        case .multipartHTTP: "multipart-http"
        case .serverSentEvents: "graphql-sse"
        case .webSocket(let protocols): protocols.map(\.rawValue).joined(separator: " or ")
        }
    }

    /// The WebSocket protocols offered, most wanted first; nil over HTTP.
    var webSocketProtocols: [GraphQLWebSocketProtocol]? {
        if case .webSocket(let protocols) = kind { protocols } else { nil }
    }
}
