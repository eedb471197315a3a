/// A query's data and where it came from: the records, or the server (Apollo's
/// `GraphQLResult.source`).
public struct GraphQLCachedResult<Data: Sendable>: Sendable {
    /// Where a result came from.
    public enum Source: Sendable, Equatable {
        /// The normalized records, without a request.
        case cache
        /// The server's response.
        case server
    }

    /// The query's data.
    public let data: Data
    /// Where it came from.
    public let source: Source
}
