/// A watched query's results, made by ``ClientGraphQL/watch(_:cachePolicy:headers:options:)``:
/// the first as its ``GraphQLCachePolicy`` says, then one each time a record field the query read
/// changes to a value that changes the query's result (an equal result is never given twice).
///
/// - **Who is woken**: the watcher is filed under the record fields its last read touched
///   (up to the first missing one), so a write reaches only the watchers that read what it
///   changed. Several writes before the watcher reads again give one result.
/// - **A miss** (a field evicted, or a write that leaves it out): nothing is given; the watcher
///   waits for the missing field to arrive. Apollo refetches instead; here a watcher never sends
///   a request after its first result (see docs/decisions.md).
/// - **The end**: cancelling the reading task ends the sequence (`nil`); dropping the iterator
///   forgets the watcher.
/// - **Policies**: ``GraphQLCachePolicy/cacheAndNetwork`` gives the records' result, then the
///   network's if it differs; ``GraphQLCachePolicy/noCache`` is ``GraphQLCachePolicy/networkOnly``
///   (a watcher reads records, so its query's result is stored).
public struct GraphQLQueryWatch<Query: GraphQLQuery>: AsyncSequence, Sendable {
    /// A result and where it came from: the first may be the server's, the others are the records'.
    public typealias Element = GraphQLCachedResult<Query.Data>
    /// What ends the sequence early: the first fetch's errors, ``NetworkError/notCached`` for a
    /// ``GraphQLCachePolicy/cacheOnly`` miss, ``NetworkError/invalidRequest(_:)`` without a
    /// normalized cache.
    public typealias Failure = NetworkError

    let graphQL: ClientGraphQL
    let query: Query
    let cachePolicy: GraphQLCachePolicy
    let headers: HTTPHeaders
    let options: RequestOptions

    /// A watcher of its own.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(watch: self)
    }

    /// One watcher.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// Keeps the watcher filed while the iterator lives: dropping it forgets the watcher.
        private final class Registration {
            let id: GraphQLRecordStore.WatcherID
            let records: GraphQLNormalizedCache
            var signals: AsyncStream<Void>.Iterator

            init(records: GraphQLNormalizedCache) {
                self.records = records
                let (id, stream) = records.register()
                (self.id, self.signals) = (id, stream.makeAsyncIterator())
            }

            deinit { records.unregister(id) }
        }

        private let watch: GraphQLQueryWatch
        private var registration: Registration?
        private var finished = false
        /// Whether the network's result is still to come (``GraphQLCachePolicy/cacheAndNetwork``).
        private var networkPending = false
        /// The JSON of the last result given: an equal one is not given again.
        private var last: JSONValue?

        init(watch: GraphQLQueryWatch) {
            self.watch = watch
        }

        /// The next result; nil once the reading task is cancelled.
        public mutating func next() async throws(NetworkError) -> Element? {
            guard !finished else { return nil }
            do throws(NetworkError) {
                return try await advance()
            } catch {
                end()
                throw error
            }
        }

        private mutating func advance() async throws(NetworkError) -> Element? {
            let records = try watch.graphQL.requireRecords()
            let access = try records.access(watch.query)
            guard let registration else {
                let registration = Registration(records: records)
                self.registration = registration
                if watch.cachePolicy != .networkOnly, watch.cachePolicy != .noCache,
                   case .success(let answer) = await records.readAndWatchLoading(registration.id, access) {
                    last = answer.data
                    networkPending = watch.cachePolicy == .cacheAndNetwork
                    return Element(data: try GraphQLNormalizedCache.decode(Query.Data.self, from: answer.data), source: .cache)
                }
                if watch.cachePolicy == .cacheOnly { throw .notCached }
                return try await network(registration, access)
            }
            if networkPending {
                networkPending = false
                if let result = try await network(registration, access) { return result }
            }
            while true {
                guard await registration.signals.next() != nil else {
                    end()
                    return nil
                }
                guard case .success(let answer) = await records.readAndWatchLoading(registration.id, access), answer.data != last else { continue }
                last = answer.data
                return Element(data: try GraphQLNormalizedCache.decode(Query.Data.self, from: answer.data), source: .cache)
            }
        }

        /// Fetches the query (its result is merged into the records) and reads it back to learn
        /// its dependencies; nil when equal to the last result given.
        private mutating func network(_ registration: Registration, _ access: GraphQLNormalizedCache.Access) async throws(NetworkError) -> Element? {
            let data = try await watch.graphQL.networkData(
                watch.query, cachePolicy: watch.cachePolicy == .noCache ? .networkOnly : watch.cachePolicy,
                headers: watch.headers, options: watch.options)
            switch await watch.graphQL.records?.readAndWatchLoading(registration.id, access) {
            case .success(let answer):
                guard answer.data != last else { return nil }
                last = answer.data
            default:
                // The records cannot answer it (a field the server left out): the network's data
                // is the result, and the watcher waits for the missing field.
                last = nil
            }
            return Element(data: data, source: .server)
        }

        private mutating func end() {
            finished = true
            registration = nil
        }
    }
}
