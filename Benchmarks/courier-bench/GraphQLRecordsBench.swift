import Courier
import CourierTesting
import Foundation

/// Issue 37's rows for the normalized cache, in memory (`--profile graphql-records`): a cached
/// read of a query of 50 objects, 3 levels deep, from the records against decoding the same
/// response from its JSON bytes; the time from a write to the one watcher of 1,000 that it
/// concerns; the resident memory that 10,000 records take.
enum GraphQLRecordsBench {
    /// 10 posts (level 1), 2 comments each (level 2), each comment's author (level 3): 50 objects.
    struct FeedQuery: GraphQLQuery {
        static let document = """
            query Feed($first: Int!) {
              feed(first: $first) { id title body likes comments { id text author { id name avatar } } }
            }
            """
        struct Variables: Encodable, Sendable { let first: Int }
        struct Data: Decodable, Sendable {
            let feed: [Post]
            struct Post: Decodable, Sendable {
                let id: String
                let title: String
                let body: String
                let likes: Int
                let comments: [Comment]
            }
            struct Comment: Decodable, Sendable {
                let id: String
                let text: String
                let author: Author
            }
            struct Author: Decodable, Sendable {
                let id: String
                let name: String
                let avatar: String
            }
        }
        let variables: Variables
    }

    /// One user's name, for the watchers.
    struct UserQuery: GraphQLQuery {
        static let document = "query User($id: ID!) { user(id: $id) { id name } }"
        struct Variables: Encodable, Sendable { let id: String }
        struct Data: Decodable, Sendable, Equatable {
            let user: User
            struct User: Decodable, Sendable, Equatable {
                let id: String
                let name: String
            }
        }
        let variables: Variables
    }

    private struct Envelope: Decodable { let data: FeedQuery.Data }

    /// The feed's response body (`{"data": …}`), with `__typename` on every object as the server
    /// sends it for the document Courier sends.
    static func feedBody() -> Data {
        var posts: [String] = []
        for post in 0..<10 {
            var comments: [String] = []
            for comment in 0..<2 {
                let user = post * 2 + comment
                comments.append(#"{"__typename":"Comment","id":"c\#(post)-\#(comment)","text":"Comment \#(comment) on post \#(post), with a few words","author":{"__typename":"User","id":"u\#(user)","name":"User \#(user)","avatar":"https://cdn.example/avatars/\#(user).png"}}"#)
            }
            posts.append(#"{"__typename":"Post","id":"p\#(post)","title":"Post number \#(post)","body":"The body of post \#(post), a sentence or two long so that it weighs what a real one does.","likes":\#(post * 7),"comments":[\#(comments.joined(separator: ","))]}"#)
        }
        return Data(#"{"data":{"feed":[\#(posts.joined(separator: ","))]}}"#.utf8)
    }

    static func client() -> APIClient {
        var configuration = APIClient.Configuration(
            baseURL: URL(string: "https://bench.example")!, transport: InMemoryTransport(always: HTTPResponse(status: 500, headers: [:], body: Data())))
        configuration.graphQL.normalizedCache = GraphQLNormalizedCacheConfiguration()
        return APIClient(configuration: configuration)
    }

    /// Every row; with `readRounds` (`--requests N`, for callgrind), the read rows only, with
    /// that many rounds.
    static func run(quick: Bool, readRounds: Int? = nil) async {
        let client = client()
        let body = feedBody()
        let query = FeedQuery(variables: .init(first: 10))
        let data: [String: JSONValue]
        do {
            guard case .object(let root) = try JSONDecoder().decode(JSONValue.self, from: body), case .object(let members)? = root["data"] else {
                fail("the feed body has no data")
            }
            data = members
            try client.graphQL.write(data, for: query)
        } catch {
            fail("writing the feed: \(error)")
        }
        let rounds = readRounds ?? (quick ? 1_000 : 5_000)
        let decoder = JSONDecoder()
        func rate(_ body: () throws -> Void) -> Double {
            for _ in 0..<(rounds / 10) { try? body() }
            let start = MonotonicTime.now
            for _ in 0..<rounds { try? body() }
            return Double(rounds) / (Double(MonotonicTime.now - start) / 1e9)
        }
        var decodeRates: [Double] = []
        var readRates: [Double] = []
        for _ in 0..<(readRounds == nil ? 3 : 1) {
            decodeRates.append(rate { _ = try decoder.decode(Envelope.self, from: body) })
            readRates.append(rate { _ = try client.graphQL.read(query) })
        }
        let decode = decodeRates.sorted()[decodeRates.count / 2]
        let read = readRates.sorted()[readRates.count / 2]
        print(String(format: "graphql-records: plain decode of the 50-object response: %.0f/s (%.1f µs)", decode, 1e6 / decode))
        print(String(format: "graphql-records: cached read from the records:          %.0f/s (%.1f µs), %.2fx the decode's rate (target >= 0.5x)",
                     read, 1e6 / read, read / decode))
        guard readRounds == nil else { return }
        await watcherLatency(quick: quick)
        await memory()
        await client.shutdown()
    }

    /// 1,000 watchers, each of one user's name; a write to one user reaches its watcher only.
    static func watcherLatency(quick: Bool) async {
        let client = client()
        let watchers = 1_000
        for index in 0..<watchers {
            try? client.graphQL.write(["user": .object(["__typename": .string("User"), "id": .string("w\(index)"), "name": .string("Name 0")])],
                                      for: UserQuery(variables: .init(id: "w\(index)")))
        }
        let (arrivals, arrived) = AsyncStream<(Int, UInt64)>.makeStream()
        var tasks: [Task<Void, Never>] = []
        for index in 0..<watchers {
            tasks.append(Task {
                do {
                    for try await _ in client.graphQL.watch(UserQuery(variables: .init(id: "w\(index)")), cachePolicy: .cacheOnly) {
                        arrived.yield((index, MonotonicTime.now))
                    }
                } catch {}
            })
        }
        var arrivalIterator = arrivals.makeAsyncIterator()
        // Each watcher's first (cached) result.
        for _ in 0..<watchers { _ = await arrivalIterator.next() }
        var latencies: [Double] = []
        let writes = quick ? 200 : 1_000
        for write in 1...writes {
            let target = (write * 397) % watchers
            let start = MonotonicTime.now
            try? client.graphQL.write(["user": .object(["__typename": .string("User"), "id": .string("w\(target)"), "name": .string("Name \(write)")])],
                                      for: UserQuery(variables: .init(id: "w\(target)")))
            guard let (index, time) = await arrivalIterator.next() else { break }
            if index != target { fail("watcher \(index) woke for a write to \(target)") }
            latencies.append(Double(time - start) / 1000)
        }
        for task in tasks { task.cancel() }
        latencies.sort()
        func percentile(_ p: Double) -> Double { latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
        print(String(format: "graphql-records: write to notification, 1 of %d watchers: p50 %.1f µs, p99 %.1f µs (%d writes)",
                     watchers, percentile(0.5), percentile(0.99), latencies.count))
        await client.shutdown()
    }

    /// Resident memory before and after writing 10,000 user records (one query of 10,000).
    static func memory() async {
        struct UsersQuery: GraphQLQuery {
            static let document = "query Users { users { id name email age } }"
            struct Data: Decodable, Sendable {}
            let variables = GraphQLNoVariables()
        }
        let client = client()
        var users: [JSONValue] = []
        for index in 0..<10_000 {
            users.append(.object([
                "__typename": .string("User"), "id": .string("user-\(index)"), "name": .string("User number \(index)"),
                "email": .string("user\(index)@example.com"), "age": .number(Double(20 + index % 50)),
            ]))
        }
        let before = ProcessMemory.residentMiB
        try? client.graphQL.write(["users": .array(users)], for: UsersQuery())
        users = []
        let after = ProcessMemory.residentMiB
        print(String(format: "graphql-records: 10,000 records (4 fields each): %.1f MiB resident (%.0f bytes a record)",
                     after - before, (after - before) * 1_048_576 / 10_000))
        await client.shutdown()
    }
}
