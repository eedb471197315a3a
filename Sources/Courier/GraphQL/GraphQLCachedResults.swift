/// A query's results under a ``GraphQLCachePolicy``, made by
/// ``ClientGraphQL/fetch(_:cachePolicy:headers:options:)``: one result, or two with
/// ``GraphQLCachePolicy/cacheAndNetwork`` when the records hold the query (theirs, then the
/// network's). Nothing runs before the first `next()`.
public struct GraphQLCachedResults<Query: GraphQLQuery>: AsyncSequence, Sendable {
    /// A result and where it came from.
    public typealias Element = GraphQLCachedResult<Query.Data>
    /// What ends the sequence early: the network's errors, or ``NetworkError/notCached``.
    public typealias Failure = NetworkError

    let graphQL: ClientGraphQL
    let query: Query
    let cachePolicy: GraphQLCachePolicy
    let headers: HTTPHeaders
    let options: RequestOptions

    /// An iterator that fetches once more.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(results: self)
    }

    /// The data of the last result: the network's with ``GraphQLCachePolicy/cacheAndNetwork``.
    public func data() async throws(NetworkError) -> Query.Data {
        var iterator = makeAsyncIterator()
        var last: Element?
        while let result = try await iterator.next() { last = result }
        // Every policy gives at least one result or throws.
        return last!.data
    }

    /// Gives the records' result and the network's as the policy says.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private enum Step {
            case start
            case network
            case finished
        }

        private let results: GraphQLCachedResults
        private var step = Step.start

        init(results: GraphQLCachedResults) {
            self.results = results
        }

        /// The next result; nil once the policy's are given.
        public mutating func next() async throws(NetworkError) -> Element? {
            let step = self.step
            self.step = .finished
            switch step {
            case .finished:
                return nil
            case .network:
                return try await network()
            case .start:
                switch results.cachePolicy {
                case .networkOnly, .noCache:
                    return try await network()
                case .cacheOnly:
                    guard let data = try await results.graphQL.cachedData(results.query) else { throw .notCached }
                    return Element(data: data, source: .cache)
                case .cacheFirst:
                    if let data = try await results.graphQL.cachedData(results.query) { return Element(data: data, source: .cache) }
                    return try await network()
                case .cacheAndNetwork:
                    guard let data = try await results.graphQL.cachedData(results.query) else { return try await network() }
                    self.step = .network
                    return Element(data: data, source: .cache)
                }
            }
        }

        private func network() async throws(NetworkError) -> Element {
            Element(
                data: try await results.graphQL.networkData(
                    results.query, cachePolicy: results.cachePolicy, headers: results.headers, options: results.options),
                source: .server)
        }
    }
}
