/// A GraphQL mutation: a write, never cached; retried only with an `Idempotency-Key`, and
/// queued offline like any write when sent with `client.offline.perform`.
public protocol GraphQLMutation: GraphQLOperation {}

extension GraphQLMutation {
    /// ``GraphQLOperationKind/mutation``.
    public static var kind: GraphQLOperationKind { .mutation }
}
