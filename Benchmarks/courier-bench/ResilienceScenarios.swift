import Courier
import Foundation
import Synchronization

/// Issue 38's scenarios in real time, against an in-memory server with a latency model
/// (`--profile resilience`): the slow tail with and without hedging, and an outage with a
/// circuit breaker. The suite runs the same scenarios on the manual clock
/// (`ResilienceScenarioTests`); this is what they cost on a real clock.
enum ResilienceScenarios {
    /// The server: answers `GET /tail` after its latency model's next draw, and refuses every
    /// request while `refusing` says so; counts what reached it.
    final class ModelServer: HTTPTransport, Sendable {
        private struct State {
            var random: UInt64
            var requests = 0
        }

        private let state: Mutex<State>
        private let slowShare: UInt64
        private let refusing: @Sendable () -> Bool

        init(seed: UInt64, slowPercent: UInt64, refusing: @escaping @Sendable () -> Bool = { false }) {
            state = Mutex(State(random: seed))
            slowShare = slowPercent
            self.refusing = refusing
        }

        var requests: Int { state.withLock { $0.requests } }

        func send(_ request: HTTPRequest) async throws(NetworkError) -> HTTPResponse {
            let draw = state.withLock { state -> UInt64 in
                state.requests += 1
                // SplitMix64, so every run draws the same sequence.
                state.random &+= 0x9E37_79B9_7F4A_7C15
                var z = state.random
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                return (z ^ (z >> 31)) % 100
            }
            if refusing() { throw .cannotConnect(host: "model.test", port: 80, reason: .refused, underlying: nil) }
            do {
                try await Task.sleep(for: draw < slowShare ? .milliseconds(200) : .milliseconds(1))
            } catch {
                throw .cancelled
            }
            return HTTPResponse(status: 200, headers: [:], body: Data())
        }
    }

    static func run(quick: Bool) async {
        await slowTail(calls: quick ? 500 : 2_000)
        await outage(seconds: quick ? 3 : 10, calls: quick ? 300 : 1_000)
        await saturation(seconds: quick ? 1 : 5)
    }

    /// A server of capacity 2,000 requests/s: two workers of 1 ms each, taking requests in
    /// arrival order, so its latency grows with its queue.
    final class QueueingServer: HTTPTransport, Sendable {
        private let freeAt = Mutex<[ContinuousClock.Instant]>([])
        private let clock = ContinuousClock()

        func send(_ request: HTTPRequest) async throws(NetworkError) -> HTTPResponse {
            let now = clock.now
            let done = freeAt.withLock { workers -> ContinuousClock.Instant in
                if workers.isEmpty { workers = [now, now] }
                let index = workers[0] <= workers[1] ? 0 : 1
                let finish = max(workers[index], now) + .milliseconds(1)
                workers[index] = finish
                return finish
            }
            do {
                try await clock.sleep(until: done)
            } catch {
                throw .cancelled
            }
            return HTTPResponse(status: 200, headers: [:], body: Data())
        }
    }

    /// 4,000 calls/s offered for `seconds` (open loop; a fifth interactive, two fifths default,
    /// two fifths background) to the 2,000/s server, under the fixed limit (64 running, 1,024
    /// waiting) and under the adaptive limit (Vegas, 1…200, 1,024 waiting).
    static func saturation(seconds: Int) async {
        struct Outcome: Sendable {
            var done = 0
            var shed: [RequestPriority: Int] = [:]
            var interactive: [Duration] = []
        }
        func run(_ adaptive: ConcurrencyLimitPolicy?) async -> (goodput: Double, p99: Double, shed: [RequestPriority: Int]) {
            var configuration = APIClient.Configuration(baseURL: URL(string: "https://model.test")!, transport: QueueingServer(), retryPolicy: .never)
            configuration.limits.adaptive = adaptive
            let client = APIClient(configuration: configuration)
            let events = client.events(buffer: 100_000)
            let limits = Task {
                var limits: [Int] = []
                for await event in events { if case .concurrencyLimitChanged(_, _, let limit) = event { limits.append(limit) } }
                return limits
            }
            let clock = ContinuousClock()
            let calls = 4_000 * seconds
            let start = clock.now
            let outcome = await withTaskGroup(of: (RequestPriority, Duration?, Bool).self, returning: Outcome.self) { group in
                for index in 0..<calls {
                    let due = start + .microseconds(250) * index
                    try? await clock.sleep(until: due)
                    let priority: RequestPriority = index % 5 == 0 ? .interactive : index % 5 < 3 ? .default : .background
                    group.addTask {
                        let endpoint = Endpoint<EmptyResponse>(path: "work", options: RequestOptions(priority: priority))
                        do throws(NetworkError) {
                            _ = try await client.data(for: endpoint)
                            return (priority, clock.now - due, false)
                        } catch .overloaded {
                            return (priority, nil, true)
                        } catch {
                            return (priority, nil, false)
                        }
                    }
                }
                var outcome = Outcome()
                for await (priority, latency, shed) in group {
                    if shed { outcome.shed[priority, default: 0] += 1 }
                    guard let latency else { continue }
                    outcome.done += 1
                    if priority == .interactive { outcome.interactive.append(latency) }
                }
                return outcome
            }
            let elapsed = clock.now - start
            await client.shutdown()
            let seen = await limits.value
            if adaptive != nil { print("  the adaptive limit changed \(seen.count) times, between \(seen.min() ?? 0) and \(seen.max() ?? 0)") }
            let sorted = outcome.interactive.sorted()
            let p99 = sorted.isEmpty ? 0 : sorted[Int((Double(sorted.count - 1) * 0.99).rounded(.up))].inMilliseconds
            return (Double(outcome.done) / (elapsed.inMilliseconds / 1_000), p99, outcome.shed)
        }
        func shed(_ counts: [RequestPriority: Int]) -> String {
            "shed background \(counts[.background] ?? 0), default \(counts[.default] ?? 0), interactive \(counts[.interactive] ?? 0)"
        }
        print(String(format: "resilience: saturation, 4,000 calls/s for %d s to a 2,000/s server (1 ms of work; 1/5 interactive, 2/5 background)", seconds))
        let unloaded = await unloadedLatency()
        let fixed = await run(nil)
        let adaptive = await run(ConcurrencyLimitPolicy())
        print(String(format: "  unloaded     median of 200 calls one at a time %.2f ms", unloaded))
        print(String(format: "  fixed 64     goodput %6.0f/s (%.2f× capacity)   interactive p99 %7.2f ms (%.1f× unloaded)   ", fixed.goodput, fixed.goodput / 2_000, fixed.p99, fixed.p99 / unloaded) + shed(fixed.shed))
        print(String(format: "  adaptive     goodput %6.0f/s (%.2f× capacity)   interactive p99 %7.2f ms (%.1f× unloaded)   ", adaptive.goodput, adaptive.goodput / 2_000, adaptive.p99, adaptive.p99 / unloaded)
              + shed(adaptive.shed) + "  (target: goodput >= 0.9×, p99 <= 3× unloaded, background shed first)")
    }

    /// The median latency, in milliseconds, of 200 calls made one after another to the
    /// 2,000/s server: its 1 ms of work, the timer's lateness and the client's own path.
    static func unloadedLatency() async -> Double {
        let client = APIClient(configuration: APIClient.Configuration(baseURL: URL(string: "https://model.test")!, transport: QueueingServer(), retryPolicy: .never))
        let clock = ContinuousClock()
        var latencies: [Duration] = []
        for _ in 0..<200 {
            let start = clock.now
            _ = try? await client.data(for: Endpoint<EmptyResponse>(path: "work"))
            latencies.append(clock.now - start)
        }
        await client.shutdown()
        return latencies.sorted()[latencies.count / 2].inMilliseconds
    }

    /// `calls` GETs at concurrency 8, 5 % of them answered in 200 ms and the rest in 1 ms, once
    /// without hedging and once hedged at the origin's p90 with a 6 % budget.
    static func slowTail(calls: Int) async {
        func run(_ hedging: HedgingPolicy?) async -> (p50: Double, p99: Double, extra: Double) {
            let server = ModelServer(seed: 38, slowPercent: 5)
            var configuration = APIClient.Configuration(baseURL: URL(string: "https://model.test")!, transport: server, retryPolicy: .never)
            configuration.hedging = hedging
            let client = APIClient(configuration: configuration)
            let clock = ContinuousClock()
            let latencies = await withTaskGroup(of: [Duration].self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        var took: [Duration] = []
                        for _ in stride(from: worker, to: calls, by: 8) {
                            let started = clock.now
                            _ = try? await client.data(for: Endpoint<EmptyResponse>(path: "tail"))
                            took.append(clock.now - started)
                        }
                        return took
                    }
                }
                return await group.reduce(into: []) { $0 += $1 }
            }
            await client.shutdown()
            let sorted = latencies.sorted()
            func ms(_ fraction: Double) -> Double { sorted[Int((Double(sorted.count - 1) * fraction).rounded(.up))].inMilliseconds }
            return (ms(0.5), ms(0.99), Double(server.requests - calls) / Double(calls))
        }
        let plain = await run(nil)
        let hedged = await run(HedgingPolicy(
            delay: .percentile(0.9, fallback: .milliseconds(100)), budget: RetryBudget(ratio: 0.06, reserve: 2, capacity: 10)))
        print(String(format: "resilience: slow tail, %d calls at c=8 (5 %% at 200 ms, else 1 ms)", calls))
        print(String(format: "  no hedging     p50 %7.2f ms   p99 %7.2f ms", plain.p50, plain.p99))
        print(String(format: "  hedged at p90  p50 %7.2f ms   p99 %7.2f ms   extra requests %.1f %%   p99 ratio %.2f (target <= 0.30, extra <= 6 %%)",
                     hedged.p50, hedged.p99, hedged.extra * 100, hedged.p99 / plain.p99))
    }

    /// An origin that refuses connections for `seconds`, with `calls` calls arriving evenly over
    /// that time, then answering again; a breaker (10 calls, 50 %, open 2 s + 20 %, one probe).
    static func outage(seconds: Int, calls: Int) async {
        let clock = ContinuousClock()
        let start = clock.now
        let end = start + .seconds(seconds)
        let server = ModelServer(seed: 7, slowPercent: 0) { clock.now < end }
        var configuration = APIClient.Configuration(baseURL: URL(string: "https://model.test")!, transport: server, retryPolicy: .never)
        configuration.circuitBreaker = CircuitBreakerPolicy(minimumCalls: 10, openDuration: .seconds(2), openJitter: 0.2, halfOpenProbes: 1)
        let client = APIClient(configuration: configuration)
        var refused: [Duration] = []
        var sentWhileOpen = 0
        let interval = Duration.seconds(seconds) / calls
        for index in 0..<calls {
            try? await clock.sleep(until: start + interval * index)
            let before = server.requests
            let started = clock.now
            do {
                _ = try await client.data(for: Endpoint<EmptyResponse>(path: "tail"))
            } catch .circuitOpen {
                refused.append(clock.now - started)
                sentWhileOpen += server.requests - before
            } catch {}
        }
        let reached = server.requests
        try? await clock.sleep(until: end)
        var recovery: Duration?
        while recovery == nil, clock.now - end < .seconds(10) {
            if (try? await client.data(for: Endpoint<EmptyResponse>(path: "tail"))) != nil { recovery = clock.now - end }
            try? await clock.sleep(for: .milliseconds(10))
        }
        await client.shutdown()
        let sorted = refused.sorted()
        let p99 = sorted.isEmpty ? 0 : sorted[Int((Double(sorted.count - 1) * 0.99).rounded(.up))].inMicroseconds
        let worst = sorted.last?.inMicroseconds ?? 0
        print(String(format: "resilience: outage, %d calls over %d s against a refusing origin (breaker: 10 calls, open 2 s + 20 %%, 1 probe)", calls, seconds))
        print(String(format: "  refused at once %d (p99 %.0f µs, worst %.0f µs; target < 1 ms), requests sent %d, sent while open %d",
                     refused.count, p99, worst, reached, sentWhileOpen))
        print(String(format: "  first success %.2f s after the outage ended (target <= open duration + a probe: 2.4 s + 10 ms)",
                     (recovery ?? .seconds(10)).inMilliseconds / 1_000))
    }
}

private extension Duration {
    var inMilliseconds: Double { Double(components.seconds) * 1_000 + Double(components.attoseconds) / 1e15 }
    var inMicroseconds: Double { inMilliseconds * 1_000 }
}
