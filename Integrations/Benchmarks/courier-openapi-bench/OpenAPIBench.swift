import Courier
import CourierOpenAPI
import Foundation
import OpenAPIRuntime
import OpenAPIURLSession
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The generated client's `getUser` over ``CourierTransport`` and over swift-openapi-urlsession's
/// transport, against one server (the repository's nginx, `Benchmarks/nginx/nginx.conf`):
/// requests per second and CPU time per request of this process, each transport measured in
/// turn, twice, in the same run.
///
///     courier-openapi-bench [--url http://127.0.0.1:8089] [--requests 4000] [--concurrency 16]
@main
struct OpenAPIBench {
    /// One measured run of one transport.
    struct Row {
        let name: String
        let requests: Int
        let seconds: Double
        let cpuSeconds: Double

        var requestsPerSecond: Double { Double(requests) / seconds }
        var cpuMicrosecondsPerRequest: Double { cpuSeconds * 1_000_000 / Double(requests) }
    }

    static func main() async throws {
        let arguments = CommandLine.arguments
        func value(_ name: String) -> String? {
            arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
        }
        let url = URL(string: value("--url") ?? "http://127.0.0.1:8089")!
        let requests = Int(value("--requests") ?? "") ?? 4000
        let concurrency = Int(value("--concurrency") ?? "") ?? 16

        var configuration = APIClient.Configuration(baseURL: url, retryPolicy: .never)
        configuration.limits = .init(maxConcurrentRequests: max(64, concurrency), maxQueuedRequests: max(1024, requests))
        let api = APIClient(configuration: configuration)
        let courier = Client(serverURL: url, transport: CourierTransport(client: api))
        let session = URLSession(configuration: .ephemeral)
        let urlSession = Client(serverURL: url, transport: URLSessionTransport(configuration: .init(session: session)))

        print("getUser against \(url), \(requests) requests a row, \(concurrency) in flight")
        var rows: [Row] = []
        for round in 1...2 {
            rows.append(try await measure("CourierTransport (\(round))", courier, requests: requests, concurrency: concurrency))
            rows.append(try await measure("URLSessionTransport (\(round))", urlSession, requests: requests, concurrency: concurrency))
        }
        print("| transport | req/s | CPU µs per request |")
        print("|---|---|---|")
        for row in rows {
            print("| \(row.name) | \(Int(row.requestsPerSecond.rounded())) | \(String(format: "%.1f", row.cpuMicrosecondsPerRequest)) |")
        }
        await api.shutdown()
    }

    /// Warms `client` up, then sends `requests` calls, `concurrency` at a time.
    static func measure(_ name: String, _ client: Client, requests: Int, concurrency: Int) async throws -> Row {
        try await run(client, requests: min(200, requests), concurrency: concurrency)
        let cpuBefore = cpuTime()
        let start = ContinuousClock.now
        try await run(client, requests: requests, concurrency: concurrency)
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Row(name: name, requests: requests, seconds: seconds, cpuSeconds: cpuTime() - cpuBefore)
    }

    /// `requests` calls of `getUser`, by `concurrency` workers; every answer must decode.
    static func run(_ client: Client, requests: Int, concurrency: Int) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<concurrency {
                let share = requests / concurrency + (worker < requests % concurrency ? 1 : 0)
                group.addTask {
                    for _ in 0..<share {
                        let user = try await client.getUser(path: .init(userId: 42)).ok.body.json
                        precondition(user.id == 42)
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// This process's user and system CPU time, in seconds.
    static func cpuTime() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
