import Courier
import CourierTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one benchmark run measures: the raw path (the baseline: the transport called directly,
/// plus the same JSON decode), Courier's path (`APIClient.send` with the security guard and
/// auth from the session's token store on), the cache's hit and miss paths. With a URL (for
/// `--profile`), the client uses the default transport and the baseline is raw URLSession.
struct Scenario: Sendable {
    /// `in-memory`, or `default` against a URL.
    let transportName: String
    let raw: @Sendable () async throws -> Void
    let piped: @Sendable () async throws -> Void
    let client: APIClient
    /// The same client with the response cache on.
    let cachingClient: APIClient
    /// A cache hit: a fresh stored response.
    let cacheHit: @Sendable () async throws -> Void
    /// A miss with the cache on: a URL not asked before, through the cache to the pipeline and
    /// back, then stored.
    let cacheMiss: @Sendable () async throws -> Void
    /// The requests of ``cacheMiss`` (a new URL each) through the client without the cache: what
    /// the miss path's cost is compared with, so building a new URL counts on both sides.
    let pipedNewURLs: @Sendable () async throws -> Void
    /// The baseline plus one ask to the pipeline's actor that it answers at once (`stats`): the
    /// least that passing each request through an actor's mailbox adds, whatever the pipeline does.
    let floor: @Sendable () async throws -> Void

    /// The paths for `url` (a real server over URLSession), or the embedded in-memory server.
    init(url: URL?) {
        let decoder = JSONDecoder()
        let token = "bench-token"
        // The header fields the pipeline adds to each request (Accept by the facade, Authorization
        // by the auth interceptor); the URLSession baselines send them too, so all paths send the
        // same bytes.
        let sentHeaders: HTTPHeaders = ["Accept": "application/json", "Authorization": "Bearer \(token)"]
        let transport: any HTTPTransport
        let floorRequest: HTTPRequest
        let baseURL: URL
        let path: String
        var query: [URLQueryItem] = []
        if let url {
            transportName = "default"
            transport = APIClient.Configuration.defaultTransport
            let session = URLSession(configuration: .ephemeral)
            var rawRequest = URLRequest(url: url)
            for field in sentHeaders { rawRequest.addValue(field.value, forHTTPHeaderField: field.name) }
            raw = { [rawRequest] in
                let (data, _) = try await session.data(for: rawRequest)
                _ = try decoder.decode(User.self, from: data)
            }
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
            path = components.path
            query = components.queryItems ?? []
            components.path = ""
            components.query = nil
            baseURL = components.url!
            floorRequest = HTTPRequest(url: url, headers: sentHeaders)
        } else {
            transportName = "in-memory"
            let inMemory = InMemoryTransport(always: HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: sampleBody))
            transport = inMemory
            let request = HTTPRequest(url: URL(string: "https://api.example.com/v1/users/42")!)
            raw = {
                let response = try await inMemory.send(request)
                _ = try decoder.decode(User.self, from: response.body)
            }
            baseURL = URL(string: "https://api.example.com")!
            floorRequest = request
            path = "/v1/users/42"
        }
        let configuration = APIClient.Configuration(
            baseURL: baseURL,
            transport: transport,
            // Auth through the token store, signed in from its persistence (no refresh is due).
            session: .init(persistence: InMemoryTokenPersistence(Tokens(accessToken: token, refreshToken: "bench-refresh", expiresAt: nil))),
            retryPolicy: .never,
            limits: .init(maxConcurrentRequests: 256)
        )
        let client = APIClient(configuration: configuration)
        var caching = configuration
        caching.caching = .init()
        let cachingClient = APIClient(configuration: caching)
        self.cachingClient = cachingClient
        self.client = client
        let endpoint = Endpoint<User>(path: path, query: query)
        floor = { [floorRequest, transport] in
            _ = try await client.pipelineStats()
            _ = try decoder.decode(User.self, from: try await transport.send(floorRequest).body)
        }
        piped = { _ = try await client.send(endpoint).value }
        cacheHit = { _ = try await cachingClient.send(endpoint).value }
        // Every miss asks for a URL of its own (a query item counts), so none is coalesced or hit.
        let counter = Locked(0)
        let baseQuery = query
        let newURL: @Sendable () -> Endpoint<User> = {
            let number = counter.withLock { $0 += 1; return $0 }
            var unique = endpoint
            unique.query = baseQuery + [URLQueryItem(name: "n", value: String(number))]
            return unique
        }
        cacheMiss = { _ = try await cachingClient.send(newURL()).value }
        pipedNewURLs = { _ = try await client.send(newURL()).value }
    }
}
