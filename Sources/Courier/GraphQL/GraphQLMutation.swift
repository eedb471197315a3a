/// A GraphQL mutation: a write, never cached; retried only with an `Idempotency-Key`, and
/// queued offline like any write when its options say `queueWhenOffline`.
public protocol GraphQLMutation: GraphQLOperation {}

extension GraphQLMutation {
    /// ``GraphQLOperationKind/mutation``.
    public static var kind: GraphQLOperationKind { .mutation }
}
