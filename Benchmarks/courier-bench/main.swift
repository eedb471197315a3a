import Courier
import CourierTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// courier-bench: throughput and latency of Courier's request path, measured in the same run
// as a baseline (the same transport called directly, plus the same JSON decode), so the ratio
// is what to read on a shared, noisy machine.
//
//     swift run -c release courier-bench            # in-memory transport (the embedded default)
//     swift run -c release courier-bench --quick    # a short run (CI)
//     swift run -c release courier-bench --url http://127.0.0.1:8089/v1/users/42
//     swift run -c release courier-bench --json results.json

/// The body the embedded in-memory server answers with (52 bytes, as nginx's config does).
let sampleBody = Data(#"{"id":42,"name":"Ada Lovelace","email":"ada@ex.org"}"#.utf8)

var rows: [Row] = []

@MainActor func report(_ name: String, _ transport: String, _ concurrency: Int, _ measured: Measurement, baseline: Measurement, messages: Double) {
    let row = Row(
        name: name, transport: transport, concurrency: concurrency, requests: measured.requests,
        requestsPerSecond: measured.requestsPerSecond, baselineRequestsPerSecond: baseline.requestsPerSecond,
        p50Micros: measured.percentileMicros(0.5), p90Micros: measured.percentileMicros(0.9),
        p99Micros: measured.percentileMicros(0.99), messagesPerRequest: messages, peakRSSMiB: ProcessMemory.peakResidentMiB,
        cpuMicrosPerRequest: measured.cpuMicrosPerRequest, baselineCpuMicrosPerRequest: baseline.cpuMicrosPerRequest,
        contextSwitchesPerRequest: measured.contextSwitchesPerRequest)
    rows.append(row)
    let columns = String(
        format: " %6d %9d %10.0f %10.0f %6.2f %9.1f %9.1f %9.1f %8.2f %8.1f %6.2f %6.1f",
        row.concurrency, row.requests, row.requestsPerSecond, row.baselineRequestsPerSecond,
        row.requestsPerSecond / row.baselineRequestsPerSecond, row.p50Micros, row.p90Micros, row.p99Micros,
        row.messagesPerRequest, row.cpuMicrosPerRequest, row.cpuMicrosPerRequest / row.baselineCpuMicrosPerRequest,
        row.contextSwitchesPerRequest)
    print(row.name.padding(toLength: 18, withPad: " ", startingAt: 0) + columns
          + (measured.failures > 0 ? "  (\(measured.failures) failed)" : ""))
}

let options = Options.parse(CommandLine.arguments)
let decoder = JSONDecoder()

// The raw path (baseline) and the transport the pipeline uses.
let token = "bench-token"
/// The header fields the pipeline adds to each request (Accept by the facade, Authorization by
/// the auth interceptor); the URLSession baselines send them too, so all paths send the same bytes.
let sentHeaders: HTTPHeaders = ["Accept": "application/json", "Authorization": "Bearer \(token)"]
let transportName: String
let pipelineTransport: any HTTPTransport
let raw: @Sendable () async throws -> Void
let baseURL: URL
let path: String
var query: [URLQueryItem] = []
let requestsPerScenario: Int
if let url = options.url {
    transportName = "urlsession"
    pipelineTransport = URLSessionTransport()
    let session = URLSession(configuration: .ephemeral)
    // The same request the pipeline sends: its Accept and Authorization headers included.
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
    requestsPerScenario = options.quick ? 1_000 : 10_000
} else {
    transportName = "in-memory"
    let transport = InMemoryTransport(always: HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: sampleBody))
    pipelineTransport = transport
    let request = HTTPRequest(url: URL(string: "https://api.example.com/v1/users/42")!)
    raw = {
        let response = try await transport.send(request)
        _ = try decoder.decode(User.self, from: response.body)
    }
    baseURL = URL(string: "https://api.example.com")!
    path = "/v1/users/42"
    requestsPerScenario = options.quick ? 20_000 : 200_000
}

// The measured path: the cache-miss path with the security guard and the auth interceptor on.
let client = APIClient(configuration: .init(
    baseURL: baseURL,
    transport: pipelineTransport,
    auth: AuthInterceptor { token },
    retryPolicy: .never,
    limits: .init(maxConcurrentRequests: 256)
))
let endpoint = Endpoint<User>(path: path, query: query)
let piped: @Sendable () async throws -> Void = { _ = try await client.send(endpoint).value }

/// Over URLSession, `URLSessionTransport` alone: splits the transport's cost from the pipeline's.
let transportOnly: (@Sendable () async throws -> Void)? = options.url.map { url in
    let request = HTTPRequest(url: url, headers: sentHeaders)
    return { _ = try decoder.decode(User.self, from: try await pipelineTransport.send(request).body) }
}

print("courier-bench: \(transportName) transport, \(requestsPerScenario) requests per scenario, \(ProcessInfo.processInfo.activeProcessorCount) cores")
print("baseline: the same transport called directly + JSON decode; pipeline: APIClient.send (security guard + auth + decode)")
print("cpu: CPU time of the whole process per request, and its ratio to the baseline's (steadier than req/s); csw: context switches per request")
print("name                 conc  requests      req/s   baseline  ratio    p50 µs    p90 µs    p99 µs msgs/req   cpu µs  ratio    csw")

for concurrency in [1, 16, 64, 256] {
    let warmup = max(requestsPerScenario / 10, 100)
    _ = await measure(requests: warmup, concurrency: concurrency, raw)
    _ = await measure(requests: warmup, concurrency: concurrency, piped)
    let paths = [raw, piped] + (transportOnly.map { [$0] } ?? [])
    let before = (try? await client.pipelineStats().messagesHandled) ?? 0
    let results = await measureInterleaved(requests: requestsPerScenario, concurrency: concurrency, rounds: 6, paths)
    let after = (try? await client.pipelineStats().messagesHandled) ?? 0
    // `after` counts the stats ask that read it; it is not part of the requests.
    let messages = Double(after - before - 1) / Double(results[1].requests)
    report("baseline", transportName, concurrency, results[0], baseline: results[0], messages: 0)
    report("pipeline", transportName, concurrency, results[1], baseline: results[0], messages: messages)
    if results.count > 2 {
        report("transport", transportName, concurrency, results[2], baseline: results[0], messages: 0)
    }
}
await client.shutdown()

// What one message costs in this runtime (tell: one enqueue + handle; ask: a round trip).
let runtime = await RuntimeCosts.measure(messages: options.quick ? 200_000 : 2_000_000)
print(String(format: "runtime: %.0f ns per tell, %.0f ns per ask (one sender, release build)", runtime.tellNanos, runtime.askNanos))
print(String(format: "peak RSS %.1f MiB", ProcessMemory.peakResidentMiB))

if let jsonPath = options.jsonPath {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    struct Output: Encodable {
        let scenarios: [Row]
        let tellNanos: Double
        let askNanos: Double
    }
    do {
        let output = Output(scenarios: rows, tellNanos: runtime.tellNanos, askNanos: runtime.askNanos)
        try encoder.encode(output).write(to: URL(fileURLWithPath: jsonPath))
    } catch {
        fail("could not write \(jsonPath): \(error)")
    }
}
