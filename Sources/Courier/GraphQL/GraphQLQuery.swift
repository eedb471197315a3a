/// A GraphQL query: a read, cached and coalesced under ``APIClient/Configuration/caching``.
public protocol GraphQLQuery: GraphQLOperation {}

extension GraphQLQuery {
    /// ``GraphQLOperationKind/query``.
    public static var kind: GraphQLOperationKind { .query }
}
