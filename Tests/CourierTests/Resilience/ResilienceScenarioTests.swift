import CourierTesting
import Foundation
import Testing

@testable import Courier

private let base = URL(string: "https://upstream.test")!

/// The answer times of the slow-tail server: 5 % take 200 ms, the rest 1 ms, drawn from a seeded
/// source so that every run sees the same sequence.
private func slowTailLatencies(count: Int, seed: UInt64) -> [Duration] {
    let random = SeededRandomSource(seed: seed)
    return (0..<count).map { _ in random.next() % 100 < 5 ? .milliseconds(200) : .milliseconds(1) }
}

/// The `fraction` (0…1) percentile of `durations`, the nearest sample above it.
private func percentile(_ fraction: Double, of durations: [Duration]) -> Duration {
    let sorted = durations.sorted()
    return sorted[Int((Double(sorted.count - 1) * fraction).rounded(.up))]
}

/// The scenarios of issue 38, run through a real client on the manual clock, one call at a time,
/// so that every call's latency is exact and every run is the same. The benchmark's
/// `--profile resilience` runs them against a loopback server in real time.
@Suite(.timeLimit(.minutes(3))) struct ResilienceScenarioTests {
    /// Runs `calls` sequential GETs of `/tail` against a transport that answers each request
    /// after the next of `latencies`; returns each call's latency and how many requests were sent.
    ///
    /// The driver moves the clock from one deadline to the next. When the hedge's timer passes
    /// before the attempt answered, it predicts the hedging step's decision with a copy of the
    /// hedge budget (the client's retry budget is unlimited), and waits for the hedge's request
    /// if one goes out; a wrong prediction fails the test by its time limit.
    private func runSlowTail(calls: Int, latencies: [Duration], hedging: HedgingPolicy?) async throws -> (latencies: [Duration], requests: Int) {
        let clock = ManualClock()
        let transport = ScriptedTransport(clock: clock)
        transport.script("/tail", latencies.map { .delayed($0, .status(200)) })
        let api = client(base, transport: transport, retryPolicy: .never, clock: clock) {
            $0.hedging = hedging
            $0.retryBudget = .unlimited
        }
        var budget = hedging?.budget
        var drawn = 0
        var observed: [Duration] = []
        for _ in 0..<calls {
            let started = clock.now
            let call = Task { try await api.data(for: Endpoint<EmptyResponse>(path: "tail")).status }
            let first = latencies[drawn]
            drawn += 1
            guard hedging != nil else {
                await clock.waitForSleepers(1)
                clock.advance(by: first)
                #expect(try await call.value == 200)
                observed.append(clock.now - started)
                continue
            }
            budget?.deposit()
            await clock.waitForSleepers(2)   // the attempt and the hedge's timer
            let delay = try #require(clock.pendingDelays.first { $0 != first } ?? clock.pendingDelays.first)
            if first <= delay {
                clock.advance(by: first)
            } else {
                clock.advance(by: delay)   // the timer: the attempt has not answered
                if budget?.withdraw() == true {
                    let hedge = latencies[drawn]
                    drawn += 1
                    await clock.waitForSleepers(2)   // the first attempt and the hedge
                    clock.advance(by: min(first - delay, hedge))
                } else {
                    clock.advance(by: first - delay)
                }
            }
            #expect(try await call.value == 200)
            observed.append(clock.now - started)
        }
        await api.shutdown()
        return (observed, transport.requests(to: "/tail").count)
    }

    @Test("slow tail: with hedging at p90, p99 is at most 0.3× its value without, for at most 6 % more requests")
    func slowTail() async throws {
        let calls = 1_000
        let latencies = slowTailLatencies(count: 2 * calls, seed: 38)
        let plain = try await runSlowTail(calls: calls, latencies: latencies, hedging: nil)
        let hedged = try await runSlowTail(
            calls: calls, latencies: latencies,
            hedging: HedgingPolicy(delay: .percentile(0.9, fallback: .milliseconds(100)), budget: RetryBudget(ratio: 0.06, reserve: 2, capacity: 10)))
        let plainP99 = percentile(0.99, of: plain.latencies)
        let hedgedP99 = percentile(0.99, of: hedged.latencies)
        #expect(plain.requests == calls)
        #expect(plainP99 == .milliseconds(200))
        #expect(hedgedP99 <= plainP99 * 0.3, "p99 \(hedgedP99) hedged against \(plainP99) plain")
        #expect(hedged.requests - calls <= calls * 6 / 100, "\(hedged.requests - calls) hedges for \(calls) calls")
        #expect(hedged.requests > calls, "no call was hedged")
    }

    @Test("outage: once the breaker opens, calls fail at once with nothing sent; the first probe after it closes the breaker")
    func outage() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(clock: clock)
        transport.script("/up", [.fail(.cannotConnect(host: "upstream.test", port: 443, reason: .refused, underlying: nil))])
        let breaker = CircuitBreakerPolicy(minimumCalls: 10, openDuration: .seconds(5), openJitter: 0.2, halfOpenProbes: 1)
        let api = client(base, transport: transport, retryPolicy: .never, clock: clock) { $0.circuitBreaker = breaker }
        let events = api.events()
        // Read as the calls go, so that no change is dropped from a full buffer; ends with the client.
        let changes = Task {
            var changes: [(from: CircuitBreakerState, to: CircuitBreakerState, at: Duration)] = []
            for await event in events {
                if case .circuitBreakerChanged(_, _, let from, let to) = event { changes.append((from, to, clock.now)) }
            }
            return changes
        }
        func call() async -> NetworkError? {
            do {
                _ = try await api.data(for: Endpoint<EmptyResponse>(path: "up"))
                return nil
            } catch {
                return error
            }
        }

        // 1,000 calls over the 10 s the origin refuses connections: one every 10 ms.
        var refusedAtOnce = 0
        var sentWhileOpen = 0
        var probes = 0
        var opened = false
        for _ in 0..<1_000 {
            let sentBefore = transport.requests(to: "/up").count
            let error = await call()
            let sent = transport.requests(to: "/up").count - sentBefore
            if case .circuitOpen(let origin, let retryAfter) = error {
                opened = true
                refusedAtOnce += 1
                #expect(origin == "https://upstream.test:443")
                #expect(retryAfter > .zero && retryAfter <= .seconds(6))
                sentWhileOpen += sent
            } else {
                // Before the breaker opens, or a half-open probe after each open duration.
                if opened { probes += 1 }
                #expect(sent == 1)
            }
            clock.advance(by: .milliseconds(10))
        }
        // Only the minimum number of calls reached the origin before the breaker opened, and one
        // probe after each open duration (5 s, up to 6 with the jitter) of the 10 s.
        let outageRequests = transport.requests(to: "/up").count
        #expect(sentWhileOpen == 0)
        #expect(probes >= 1 && probes <= 2)
        #expect(outageRequests == 10 + probes)
        #expect(refusedAtOnce == 1_000 - outageRequests)

        // The origin is back. Calls go on every 10 ms; the first success comes within the open
        // duration (with its jitter) plus one call's interval, the probe's.
        transport.script("/up", [.status(200)])
        let back = clock.now
        var recovered: Duration?
        for _ in 0..<1_000 where recovered == nil {
            if await call() == nil { recovered = clock.now - back }
            clock.advance(by: .milliseconds(10))
        }
        let recovery = try #require(recovered)
        #expect(recovery <= .seconds(6) + .milliseconds(10))
        // After the probe, the breaker is closed: every call succeeds.
        for _ in 0..<20 { #expect(await call() == nil) }
        await api.shutdown()
        let seen = await changes.value
        #expect(seen.first.map { if $0.from == .closed, case .open = $0.to { true } else { false } } == true)
        #expect(seen.last.map { $0.from == .halfOpen && $0.to == .closed } == true)
    }
}
