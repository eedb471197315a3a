import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `--url`: Courier's libcurl transport against a real server, in interleaved rounds at
/// concurrency 16, 64 and 256: `raw libcurl` (``RawCurl``, the floor), `transport`
/// (``CurlTransport`` alone), `pipeline` (``APIClient`` over it, security guard and auth on)
/// and `urlsession` (raw `URLSession.data(for:)`). Every path sends the same header fields and
/// decodes the same JSON body; ratios are to the `raw libcurl` row.
struct TransportComparison {
    let options: Options
    let url: URL
    let rows: RowRecorder

    func run() async {
        #if canImport(CCurl)
        let token = "bench-token"
        let sent: HTTPHeaders = ["Accept": "application/json", "Authorization": "Bearer \(token)"]
        let decoder = JSONDecoder()
        var configuration = CurlTransport.Configuration()
        configuration.connections.maxPerHost = 256   // the deepest concurrency measured
        let transport = CurlTransport(configuration: configuration)
        let request = HTTPRequest(url: url, headers: sent)
        let transportOnly: @Sendable () async throws -> Void = {
            _ = try decoder.decode(User.self, from: try await transport.send(request).body)
        }
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        let path = components.path
        let query = components.queryItems ?? []
        components.path = ""
        components.query = nil
        let client = APIClient(configuration: .init(
            baseURL: components.url!, transport: transport,
            session: .init(persistence: InMemoryTokenPersistence(Tokens(accessToken: token, refreshToken: "bench-refresh", expiresAt: nil))),
            retryPolicy: .never, limits: .init(maxConcurrentRequests: 256)))
        let endpoint = Endpoint<User>(path: path, query: query)
        let pipeline: @Sendable () async throws -> Void = { _ = try await client.send(endpoint).value }
        let session = URLSession(configuration: .ephemeral)
        var urlRequest = URLRequest(url: url)
        for field in sent { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        let rawSession: @Sendable () async throws -> Void = { [urlRequest] in
            let (data, _) = try await session.data(for: urlRequest)
            _ = try decoder.decode(User.self, from: data)
        }
        let headerLines = sent.map { "\($0.name): \($0.value)" }
        let raw: Runner = { requests, concurrency in
            await RawCurl.measure(url: url, headers: headerLines, requests: requests, concurrency: concurrency)
        }
        let requests = options.quick ? 2_000 : 30_000
        print("courier-bench: libcurl transport against \(url.absoluteString), \(requests) requests per path and concurrency, \(ProcessInfo.processInfo.activeProcessorCount) cores")
        print("raw libcurl: a multi loop driven directly (the floor); transport: CurlTransport.send; pipeline: APIClient.send over it; urlsession: URLSession.data(for:). All decode the body.")
        print(Benchmark.header)
        for concurrency in [16, 64, 256] {
            let warmup = max(requests / 10, 200)
            _ = await raw(warmup, concurrency)
            for path in [transportOnly, pipeline, rawSession] { _ = await measure(requests: warmup, concurrency: concurrency, path) }
            let results = await measureInterleaved(
                requests: requests, concurrency: concurrency, rounds: options.quick ? 2 : 4,
                [raw, runner(transportOnly), runner(pipeline), runner(rawSession)])
            let names = ["raw libcurl", "transport", "pipeline", "urlsession"]
            for (name, result) in zip(names, results) {
                rows.report(name, "curl", concurrency, result, baseline: results[0], messages: 0)
            }
            print(String(
                format: "  at c=%d: transport cpu / raw libcurl cpu %.2f (target <= 1.5); pipeline / transport req/s %.2f (target >= 0.85); pipeline / urlsession req/s %.2f (target >= 6)",
                concurrency, results[1].cpuMicrosPerRequest / results[0].cpuMicrosPerRequest,
                results[2].requestsPerSecond / results[1].requestsPerSecond,
                results[2].requestsPerSecond / results[3].requestsPerSecond))
        }
        await client.shutdown()
        #else
        fail("--url compares Courier's libcurl transport, which is built on Linux only")
        #endif
    }

    /// `--profile transport|raw-curl`: one path alone, after 1,000 warm-up requests.
    static func profile(_ path: Options.ProfilePath, url: URL, requests: Int, concurrency: Int) async {
        #if canImport(CCurl)
        let headers: HTTPHeaders = ["Accept": "application/json", "Authorization": "Bearer bench-token"]
        let result: Measurement
        if path == .rawCurl {
            let lines = headers.map { "\($0.name): \($0.value)" }
            _ = await RawCurl.measure(url: url, headers: lines, requests: 1_000, concurrency: concurrency)
            result = await RawCurl.measure(url: url, headers: lines, requests: requests, concurrency: concurrency)
        } else {
            var configuration = CurlTransport.Configuration()
            configuration.connections.maxPerHost = 256
            let transport = CurlTransport(configuration: configuration)
            let request = HTTPRequest(url: url, headers: headers)
            let decoder = JSONDecoder()
            let operation: @Sendable () async throws -> Void = {
                _ = try decoder.decode(User.self, from: try await transport.send(request).body)
            }
            _ = await measure(requests: 1_000, concurrency: concurrency, operation)
            result = await measure(requests: requests, concurrency: concurrency, operation)
        }
        print(String(
            format: "profile: %@, %d requests at concurrency %d (+1000 warm-up), %d failed, %.1f us cpu per request",
            path.rawValue, requests, concurrency, result.failures, result.cpuMicrosPerRequest))
        #endif
    }
}
