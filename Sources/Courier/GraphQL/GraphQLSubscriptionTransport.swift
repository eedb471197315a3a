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

    /// The protocol's name: `multipart-http` or `graphql-sse`.
    public var description: String {
        switch kind {
        case .multipartHTTP: "multipart-http"
        case .serverSentEvents: "graphql-sse"
        }
    }
}
