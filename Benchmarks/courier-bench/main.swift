import Courier
import CourierTesting
import Foundation

/// courier-bench: throughput and latency of Courier's request path, measured in the same run
/// as a baseline (the same transport called directly), so the ratio is what to read.
///
///     swift run -c release courier-bench            # in-memory transport (embedded default)
///     swift run -c release courier-bench --quick    # a short run (CI)
///     swift run -c release courier-bench --url http://127.0.0.1:8080/small.json
///     swift run -c release courier-bench --json results.json

struct Options {
    var quick = false
    var jsonPath: String?
    var url: URL?

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--quick": options.quick = true
            case "--json": options.jsonPath = iterator.next()
            case "--url":
                guard let text = iterator.next(), let url = URL(string: text), url.host != nil else {
                    fail("--url needs an absolute http(s) URL")
                }
                options.url = url
            case "--help", "-h":
                print("usage: courier-bench [--quick] [--json PATH] [--url URL]")
                exit(0)
            default: fail("unknown argument \(argument)")
            }
        }
        return options
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("courier-bench: \(message)\n".utf8))
    exit(2)
}

/// The small JSON body the embedded in-memory server answers with (52 bytes).
let sampleBody = Data(#"{"id":42,"name":"Ada Lovelace","email":"ada@ex.org"}"#.utf8)

struct Row: Encodable {
    let name: String
    let transport: String
    let concurrency: Int
    let requests: Int
    let requestsPerSecond: Double
    let baselineRequestsPerSecond: Double
    let p50Micros: Double
    let p90Micros: Double
    let p99Micros: Double
    let messagesPerRequest: Double
    let peakRSSMiB: Double
}

let options = Options.parse(CommandLine.arguments)
let concurrencies = [1, 16, 64, 256]
var rows: [Row] = []

let transportName: String
let transport: any HTTPTransport
let target: URL
let requestsPerScenario: Int
if let url = options.url {
    transportName = "urlsession"
    transport = URLSessionTransport()
    target = url
    requestsPerScenario = options.quick ? 500 : 5_000
} else {
    transportName = "in-memory"
    transport = InMemoryTransport(always: HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: sampleBody))
    target = URL(string: "https://api.example.com/v1/users/42")!
    requestsPerScenario = options.quick ? 20_000 : 200_000
}

print("courier-bench: transport \(transportName), \(requestsPerScenario) requests per scenario, \(ProcessInfo.processInfo.activeProcessorCount) cores")
print("name                   conc   requests      req/s   baseline  ratio    p50 µs    p90 µs    p99 µs  msgs/req")

struct User: Decodable, Sendable {
    let id: Int
    let name: String
    let email: String
}

let client = APIClient(configuration: .init(
    baseURL: URL(string: options.url.map { "\($0.scheme ?? "http")://\($0.host ?? "")\($0.port.map { ":\($0)" } ?? "")" } ?? "https://api.example.com")!,
    transport: transport,
    auth: AuthInterceptor { "bench-token" },
    retryPolicy: .none,
    maxConcurrentRequests: 256
))
let endpoint = Endpoint<User>(path: options.url?.path ?? "/v1/users/42")
let decoder = JSONDecoder()

@MainActor func report(_ name: String, _ concurrency: Int, _ measured: Measurement, baseline: Measurement, messages: Double) {
    let row = Row(
        name: name, transport: transportName, concurrency: concurrency, requests: measured.requests,
        requestsPerSecond: measured.requestsPerSecond, baselineRequestsPerSecond: baseline.requestsPerSecond,
        p50Micros: measured.percentileMicros(0.5), p90Micros: measured.percentileMicros(0.9),
        p99Micros: measured.percentileMicros(0.99), messagesPerRequest: messages, peakRSSMiB: ProcessMemory.peakResidentMiB)
    rows.append(row)
    print(row.name.padding(toLength: 20, withPad: " ", startingAt: 0) + String(format: " %6d %10d %10.0f %10.0f %6.2f %9.1f %9.1f %9.1f %9.1f",
                 row.concurrency, row.requests, row.requestsPerSecond, row.baselineRequestsPerSecond,
                 row.requestsPerSecond / row.baselineRequestsPerSecond, row.p50Micros, row.p90Micros, row.p99Micros,
                 row.messagesPerRequest))
    if measured.failures > 0 { print("  (\(measured.failures) failures)") }
}

for concurrency in concurrencies {
    let request = try! client.makeRequest(endpoint)
    let raw: @Sendable () async throws -> Void = {
        let response = try await transport.send(request)
        _ = try decoder.decode(User.self, from: response.body)
    }
    let piped: @Sendable () async throws -> Void = { _ = try await client.send(endpoint) }
    // Warm up both paths, then measure the raw transport + decode (the baseline) and the
    // pipeline in the same run.
    _ = await measure(requests: min(requestsPerScenario / 10, 2_000), concurrency: concurrency, raw)
    _ = await measure(requests: min(requestsPerScenario / 10, 2_000), concurrency: concurrency, piped)
    let baseline = await measure(requests: requestsPerScenario, concurrency: concurrency, raw)
    let before = try! await client.pipelineStats().messagesHandled
    let measured = await measure(requests: requestsPerScenario, concurrency: concurrency, piped)
    let after = try! await client.pipelineStats().messagesHandled
    report("transport+decode", concurrency, baseline, baseline: baseline, messages: 0)
    report("pipeline", concurrency, measured, baseline: baseline, messages: Double(after - before - 1) / Double(measured.requests))
}
await client.shutdown()
print(String(format: "peak RSS %.1f MiB", ProcessMemory.peakResidentMiB))

if let path = options.jsonPath {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    do {
        try encoder.encode(["scenarios": rows]).write(to: URL(fileURLWithPath: path))
    } catch {
        fail("could not write \(path): \(error)")
    }
}
