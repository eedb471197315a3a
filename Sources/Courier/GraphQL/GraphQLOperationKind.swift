/// Whether an operation reads (a query), writes (a mutation) or listens (a subscription).
public enum GraphQLOperationKind: String, Sendable {
    /// Read: may be cached, coalesced and sent as a GET.
    case query
    /// Write: never cached, retried only with an `Idempotency-Key`, may be queued offline.
    case mutation
    /// A stream of results.
    case subscription
}
