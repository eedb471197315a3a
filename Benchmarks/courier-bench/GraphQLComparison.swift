import Courier
import CourierTesting
import Foundation

/// The GraphQL path against the same request as a plain POST through the pipeline, on the
/// in-memory server: what `client.graphQL.fetch` adds (building the body, canonical variables,
/// the document's hash and cache key, reading the envelope) to `client.data(for:)` + a decode.
struct GraphQLComparison {
    struct UserQuery: GraphQLQuery {
        static let document = "query User($id: ID!) { user(id: $id) { id name email } }"
        struct Variables: Encodable, Sendable { let id: String }
        struct Data: Decodable, Sendable { let user: User }
        let variables: Variables
    }

    /// `{"data": {"user": …}}` as a decoder reads it.
    private struct Envelope: Decodable { let data: UserQuery.Data }

    let options: Options
    let rows: RowRecorder

    /// The client on the in-memory server, and the two paths: the raw POST, and `fetch`.
    private static func paths() -> (APIClient, rawPost: @Sendable () async throws -> Void, graphQL: @Sendable () async throws -> Void) {
        let body = Data(#"{"data":{"user":"#.utf8) + sampleBody + Data("}}".utf8)
        let transport = InMemoryTransport(always: HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: body))
        let client = APIClient(configuration: .init(baseURL: URL(string: "https://bench.example")!, transport: transport))
        let postBody = Data(#"{"query":"query User($id: ID!) { user(id: $id) { id name email } }","operationName":"User","variables":{"id":"42"}}"#.utf8)
        var post = HTTPRequest(method: .post, url: URL(string: "https://bench.example/graphql")!, body: postBody)
        post.headers["Content-Type"] = "application/json"
        post.headers["Accept"] = "application/graphql-response+json, application/json"
        let decoder = JSONDecoder()
        let rawPost: @Sendable () async throws -> Void = { [post] in
            _ = try decoder.decode(Envelope.self, from: try await client.data(for: post).body)
        }
        let graphQL: @Sendable () async throws -> Void = {
            _ = try await client.graphQL.fetch(UserQuery(variables: .init(id: "42")))
        }
        return (client, rawPost, graphQL)
    }

    /// One of the paths alone, for callgrind or perf.
    static func profile(graphQL: Bool, requests: Int, concurrency: Int) async {
        let (client, rawPost, fetch) = paths()
        let path = graphQL ? fetch : rawPost
        _ = await measure(requests: 1_000, concurrency: concurrency, path)
        let result = await measure(requests: requests, concurrency: concurrency, path)
        await client.shutdown()
        print("profile: \(graphQL ? "graphql" : "graphql-post"), \(requests) requests at concurrency \(concurrency) (+1000 warm-up), \(result.failures) failed")
    }

    func run() async {
        let (client, rawPost, graphQL) = Self.paths()
        let requests = options.quick ? 20_000 : 200_000
        print("graphql: client.graphQL.fetch against the same POST through client.data(for:) + decode (in-memory, cache off)")
        for concurrency in [1, 16, 64] {
            _ = await measure(requests: requests / 10, concurrency: concurrency, rawPost)
            _ = await measure(requests: requests / 10, concurrency: concurrency, graphQL)
            let results = await measureInterleaved(requests: requests, concurrency: concurrency, rounds: 6, [rawPost, graphQL])
            rows.report("graphql raw POST", "in-memory", concurrency, results[0], baseline: results[0], messages: 1)
            rows.report("graphql fetch", "in-memory", concurrency, results[1], baseline: results[0], messages: 1)
            print(String(format: "  graphql at c=%d: fetch / raw POST %.2f (target >= 0.9)",
                         concurrency, results[1].requestsPerSecond / results[0].requestsPerSecond))
        }
        await client.shutdown()
    }
}
