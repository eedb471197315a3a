/// A GraphQL subscription: a stream of results, over HTTP with the multipart protocol.
public protocol GraphQLSubscription: GraphQLOperation {}

extension GraphQLSubscription {
    /// ``GraphQLOperationKind/subscription``.
    public static var kind: GraphQLOperationKind { .subscription }
}
