import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `--url`: Courier's libcurl transport against a real server, in interleaved rounds at
/// concurrency 16, 64 and 256: `raw libcurl` (``RawCurl``, the floor), `transport`
/// (``CurlTransport`` alone), `pipeline` (``APIClient`` over it, security guard and auth on),
/// `data(for:)` (the same client, the body not decoded, as clients that only read bytes are
/// measured), `urlsession` (raw `URLSession.data(for:)`) and `decode only` (the body decoded in
/// memory: what JSON costs apart from the path). Every path sends the same header fields and
/// all but `data(for:)` decode the same JSON body; ratios are to the `raw libcurl` row.
struct TransportComparison {
    let options: Options
    let url: URL
    let rows: RowRecorder

    func run() async {
        #if canImport(CCurl)
        let (token, sent) = (TransportComparison.token, TransportComparison.sentHeaders)
        let decoder = JSONDecoder()
        let configuration = TransportComparison.transportConfiguration()
        let transport = CurlTransport(configuration: configuration)
        let request = HTTPRequest(url: url, headers: sent)
        let transportOnly: @Sendable () async throws -> Void = {
            _ = try decoder.decode(User.self, from: try await transport.send(request).body)
        }
        let endpoint = Self.endpoint(url)
        // Decoding alone: the body nginx answers with, decoded in memory.
        let decodeOnly: @Sendable () async throws -> Void = { _ = try decoder.decode(User.self, from: sampleBody) }
        let session = URLSession(configuration: .ephemeral)
        var urlRequest = URLRequest(url: url)
        for field in sent { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        let rawSession: @Sendable () async throws -> Void = { [urlRequest] in
            let (data, _) = try await session.data(for: urlRequest)
            _ = try decoder.decode(User.self, from: data)
        }
        let headerLines = sent.map { "\($0.name): \($0.value)" }
        let raw: Runner = { requests, concurrency in
            await RawCurl.measure(.init(url: url, headers: headerLines), requests: requests, concurrency: concurrency)
        }
        let requests = options.quick ? 2_000 : 30_000
        print("courier-bench: libcurl transport against \(url.absoluteString), \(requests) requests per path and concurrency, \(ProcessInfo.processInfo.activeProcessorCount) cores")
        print("raw libcurl: a multi loop driven directly (the floor); transport: CurlTransport.send; pipeline: APIClient.send over it; urlsession: URLSession.data(for:). All decode the body.")
        print("data(for:): APIClient.data(for: endpoint) over the same transport, the body not decoded; decode only: the same 52-byte body decoded in memory (its cpu is what JSON costs per request)")
        print("pipeline and data(for:): a client per concurrency whose limits (maxConcurrentRequests, maxQueuedRequests) are that concurrency, so admission never holds a request back")
        print(Benchmark.header)
        for concurrency in [16, 64, 256] {
            let client = Self.client(url, transport: transport, token: token, concurrency: concurrency)
            let pipeline: @Sendable () async throws -> Void = { _ = try await client.send(endpoint).value }
            let data: @Sendable () async throws -> Void = { _ = try await client.data(for: endpoint) }
            let warmup = max(requests / 10, 200)
            _ = await raw(warmup, concurrency)
            for path in [transportOnly, pipeline, data, rawSession, decodeOnly] { _ = await measure(requests: warmup, concurrency: concurrency, path) }
            let results = await measureInterleaved(
                requests: requests, concurrency: concurrency, rounds: options.quick ? 2 : 4,
                [raw, runner(transportOnly), runner(pipeline), runner(data), runner(rawSession), runner(decodeOnly)])
            let names = ["raw libcurl", "transport", "pipeline", "data(for:)", "urlsession", "decode only"]
            for (name, result) in zip(names, results) {
                rows.report(name, "curl", concurrency, result, baseline: results[0], messages: 0)
            }
            let (rawCPU, transportCPU, pipelineCPU) = (results[0].cpuMicrosPerRequest, results[1].cpuMicrosPerRequest, results[2].cpuMicrosPerRequest)
            print(String(
                format: "  at c=%d: cpu / raw libcurl's: transport %.2f (target <= 1.2), pipeline %.2f (target <= %.2f), data(for:) %.2f; decode %.1f us of the pipeline's %.1f; pipeline / transport req/s %.2f (target >= 0.9); pipeline / urlsession req/s %.2f",
                concurrency, transportCPU / rawCPU, pipelineCPU / rawCPU, concurrency >= 256 ? 1.5 : 1.35,
                results[3].cpuMicrosPerRequest / rawCPU, results[5].cpuMicrosPerRequest, pipelineCPU,
                results[2].requestsPerSecond / results[1].requestsPerSecond,
                results[2].requestsPerSecond / results[4].requestsPerSecond))
            await client.shutdown()
        }
        #else
        fail("--url compares Courier's libcurl transport, which is built on Linux only")
        #endif
    }

    /// The endpoint of `url` (its path and query) for a client whose base URL is `url`'s origin.
    /// The token the pipeline rows' clients sign in with, and the fields every row sends (the raw
    /// loop and the transport by hand, the pipeline through its auth step).
    static let token = "bench-token"
    static let sentHeaders: HTTPHeaders = ["Accept": "application/json", "Authorization": "Bearer \(token)"]

    #if canImport(CCurl)
    /// The transport the rows use: connections enough for the deepest concurrency measured.
    static func transportConfiguration(extraRootsFile: String? = nil) -> CurlTransport.Configuration {
        var configuration = CurlTransport.Configuration()
        configuration.connections.maxPerHost = 256
        configuration.tls.extraRootsFile = extraRootsFile
        return configuration
    }
    #endif

    static func endpoint(_ url: URL) -> Endpoint<User> {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        return Endpoint<User>(path: components.path, query: components.queryItems ?? [])
    }

    /// A client on `url`'s origin over `transport`, signed in with `token` (auth and the
    /// security guard on, retries off), whose limits are `concurrency`: as many running and as
    /// many waiting as the rows keep in flight, so admission never holds one back.
    static func client(_ url: URL, transport: any HTTPTransport, token: String, concurrency: Int, maxQueued: Int? = nil) -> APIClient {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.path = ""
        components.query = nil
        return APIClient(configuration: .init(
            baseURL: components.url!, transport: transport,
            session: .init(persistence: InMemoryTokenPersistence(Tokens(accessToken: token, refreshToken: "bench-refresh", expiresAt: nil))),
            retryPolicy: .never,
            limits: .init(maxConcurrentRequests: concurrency, maxQueuedRequests: maxQueued ?? concurrency)))
    }

    /// `--profile transport|raw-curl`: one path alone, after 1,000 warm-up requests.
    /// One path alone, for callgrind; an `https` URL is HTTP/2 over TLS trusting `caFile`, as the
    /// HTTP/2 rows.
    static func profile(_ path: Options.ProfilePath, url: URL, caFile: String?, requests: Int, concurrency: Int) async {
        #if canImport(CCurl)
        let headers = sentHeaders
        let result: Measurement
        if path == .rawCurl {
            var target = RawCurl.Target(url: url, headers: headers.map { "\($0.name): \($0.value)" })
            if url.scheme == "https" {
                target.http2 = true
                target.caFile = caFile
            }
            _ = await RawCurl.measure(target, requests: 1_000, concurrency: concurrency)
            result = await RawCurl.measure(target, requests: requests, concurrency: concurrency)
        } else {
            let transport = CurlTransport(configuration: transportConfiguration(extraRootsFile: caFile))
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
