import Courier
import Foundation

/// `--h2-url`: the same request over HTTP/2 with TLS (the repository's `nginx-h2.conf`), at
/// concurrency 64 and 256, in interleaved rounds: `raw libcurl` (``RawCurl`` with
/// multiplexing: requests share connections up to the streams a connection allows),
/// `transport` (``CurlTransport``, which negotiates HTTP/2 by ALPN and multiplexes too) and
/// `pipeline` (``APIClient`` over it, its limits the concurrency). Every run starts with a new
/// multi handle, transport or client, so each opens the connections it needs; `conns` is how
/// many the server accepted per run, read from nginx's `stub_status` (`/nginx-status` on the same
/// server) before and after each run. Ratios are to `raw libcurl`.
struct HTTP2Comparison {
    let options: Options
    let url: URL
    /// `--h2-ca-file`: a PEM file of roots to trust besides the system's.
    let extraRootsFile: String?
    let rows: RowRecorder

    func run() async {
        #if canImport(CCurl)
        let (token, sent) = (TransportComparison.token, TransportComparison.sentHeaders)
        let decoder = JSONDecoder()
        let configuration = TransportComparison.transportConfiguration(extraRootsFile: extraRootsFile)
        let request = HTTPRequest(url: url, headers: sent)
        let endpoint = TransportComparison.endpoint(url)
        var target = RawCurl.Target(url: url, headers: sent.map { "\($0.name): \($0.value)" })
        target.http2 = true
        target.caFile = extraRootsFile

        let protocolURL = URL(string: "/protocol", relativeTo: url)!.absoluteURL
        let spoken = await Self.fetch(protocolURL, configuration: configuration).map { String(decoding: $0, as: UTF8.self) }
        let statusURL = URL(string: "/nginx-status", relativeTo: url)!.absoluteURL
        if spoken != "HTTP/2.0" {
            print("\nHTTP/2 rows: \(protocolURL.absoluteString) answered \(spoken.map { "\"\($0)\"" } ?? "nothing"), not \"HTTP/2.0\" (nginx-h2.conf answers with the protocol the request came in)")
        }
        let raw: Runner = { requests, concurrency in await RawCurl.measure(target, requests: requests, concurrency: concurrency) }
        let transported: Runner = { requests, concurrency in
            let transport = CurlTransport(configuration: configuration)
            return await measure(requests: requests, concurrency: concurrency) {
                _ = try decoder.decode(User.self, from: try await transport.send(request).body)
            }
        }
        let piped: Runner = { requests, concurrency in
            let client = TransportComparison.client(url, transport: CurlTransport(configuration: configuration), token: token, concurrency: concurrency)
            let result = await measure(requests: requests, concurrency: concurrency) { _ = try await client.send(endpoint).value }
            await client.shutdown()
            return result
        }
        let paths = [raw, transported, piped]
        let names = ["raw libcurl", "transport", "pipeline"]
        let requests = options.quick ? 1_000 : 10_000
        let rounds = options.quick ? 2 : 4
        print("\nHTTP/2 over TLS against \(url.absoluteString), \(requests) requests per path and concurrency in \(rounds) interleaved rounds")
        print("raw libcurl: the multi loop with CURLPIPE_MULTIPLEX (waits to multiplex); transport: CurlTransport.send; pipeline: APIClient.send over it, its limits the concurrency. All decode the body.")
        print("trust: raw libcurl sets CURLOPT_CAINFO to the CA file (libcurl keeps the parsed store for later connections); the transport adds it to the system's roots as extraRootsFile, through its TLS check (an SSL_CTX callback), which costs more per new connection")
        print("each run starts a new multi handle, transport or client; conns: connections nginx accepted per run (stub_status)")
        print(Benchmark.header + "  conns")
        for concurrency in [64, 256] {
            for path in paths { _ = await path(max(requests / 10, 200), concurrency) }
            var runs = Array(repeating: [Measurement](), count: paths.count)
            var connections: [Int?] = Array(repeating: 0, count: paths.count)
            for round in 0..<rounds {
                for offset in paths.indices {
                    let index = (round + offset) % paths.count
                    let before = await Self.acceptedConnections(statusURL, configuration: configuration)
                    runs[index].append(await paths[index](requests / rounds, concurrency))
                    let after = await Self.acceptedConnections(statusURL, configuration: configuration)
                    // The second read's own connection is counted in its answer.
                    if let before, let after, let sum = connections[index] {
                        connections[index] = sum + after - before - 1
                    } else {
                        connections[index] = nil
                    }
                }
            }
            let results = runs.map(Measurement.init(combining:))
            for (index, name) in names.enumerated() {
                rows.report(
                    name, "curl h2", concurrency, results[index], baseline: results[0], messages: 0,
                    connectionsPerRun: connections[index].map { Double($0) / Double(rounds) })
            }
            print(String(
                format: "  h2 at c=%d: cpu / raw libcurl's: transport %.2f, pipeline %.2f (target <= 1.5); pipeline / transport req/s %.2f",
                concurrency, results[1].cpuMicrosPerRequest / results[0].cpuMicrosPerRequest,
                results[2].cpuMicrosPerRequest / results[0].cpuMicrosPerRequest,
                results[2].requestsPerSecond / results[1].requestsPerSecond))
        }
        if connectionsUnknown(rows) { print("  conns: \(statusURL.absoluteString) did not answer with nginx's stub_status") }
        #else
        fail("--h2-url compares Courier's libcurl transport, which is built on Linux only")
        #endif
    }

    private func connectionsUnknown(_ rows: RowRecorder) -> Bool {
        rows.rows.contains { $0.transport == "curl h2" && $0.connectionsPerRun == nil }
    }

    #if canImport(CCurl)
    /// The body of a GET of `url` over a transport of its own (so a connection of its own),
    /// nil unless it answered 200.
    private static func fetch(_ url: URL, configuration: CurlTransport.Configuration) async -> Data? {
        let transport = CurlTransport(configuration: configuration)
        guard let response = try? await transport.send(HTTPRequest(url: url)), response.status == 200 else { return nil }
        return response.body
    }

    /// The connections nginx has accepted since it started (`stub_status`'s `accepts`), this
    /// read's own included; nil if `statusURL` does not answer so.
    static func acceptedConnections(_ statusURL: URL, configuration: CurlTransport.Configuration) async -> Int? {
        guard let body = await fetch(statusURL, configuration: configuration) else { return nil }
        return parseAccepts(String(decoding: body, as: UTF8.self))
    }
    #endif

    /// `accepts` from a `stub_status` page:
    ///
    ///     Active connections: 2
    ///     server accepts handled requests
    ///      17 17 1024
    ///     Reading: 0 Writing: 1 Waiting: 1
    static func parseAccepts(_ page: String) -> Int? {
        let lines = page.split(separator: "\n")
        guard let header = lines.firstIndex(where: { $0.hasPrefix("server accepts") }), header + 1 < lines.count else { return nil }
        return lines[header + 1].split(separator: " ").first.flatMap { Int($0) }
    }
}
