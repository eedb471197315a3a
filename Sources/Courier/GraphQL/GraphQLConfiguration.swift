/// Where GraphQL operations go and how they are sent (``APIClient/graphQL``); the client's
/// ``APIClient/Configuration/graphQL``.
public struct GraphQLConfiguration: Sendable {
    /// The endpoint's path under the base URL. Default `graphql`.
    public var path: String
    /// The API version prefixed to ``path``, if any. Default none.
    public var version: APIVersion?
    /// Whether queries go as `GET` (query parameters; cacheable by any HTTP cache on the
    /// way) instead of `POST`. Mutations are always `POST`ed. Default `false`.
    public var queriesAsGET: Bool
    /// Whether operations use automatic persisted queries (Apollo's protocol): the
    /// document's SHA-256 goes first, the document itself only when the server answers
    /// `PersistedQueryNotFound`. Default `false`.
    public var persistedQueries: Bool
    /// How subscriptions reach the endpoint. Default ``GraphQLSubscriptionTransport/multipartHTTP``.
    public var subscriptionTransport: GraphQLSubscriptionTransport
    /// How subscriptions over a WebSocket transport run: reconnection, `connection_init`'s
    /// payload, timeouts. Default ``GraphQLWebSocketOptions/init()``.
    public var webSocket = GraphQLWebSocketOptions()
    /// The normalized cache of results (records by object identity, watched queries), or nil
    /// for none: queries then use the document-level cache only. Default nil.
    public var normalizedCache: GraphQLNormalizedCacheConfiguration?

    /// Creates GraphQL settings; every parameter has its documented default.
    public init(
        path: String = "graphql", version: APIVersion? = nil, queriesAsGET: Bool = false, persistedQueries: Bool = false,
        subscriptionTransport: GraphQLSubscriptionTransport = .multipartHTTP
    ) {
        self.path = path
        self.version = version
        self.queriesAsGET = queriesAsGET
        self.persistedQueries = persistedQueries
        self.subscriptionTransport = subscriptionTransport
    }
}
