import CourierTesting
import Foundation
import Testing

@testable import Courier

/// A hedge 1 s after an attempt started, with no cap from the hedge budget.
private let policy = HedgingPolicy(delay: .fixed(.seconds(1)), budget: .unlimited)
private let base = URL(string: "https://api.test")!

private func hedgingClient(_ transport: ScriptedTransport, clock: ManualClock, hedging: HedgingPolicy? = policy) -> APIClient {
    client(base, transport: transport, retryPolicy: .never, clock: clock) { $0.hedging = hedging }
}

/// The call's error, or `nil` if it succeeded.
private func failure(
    _ api: APIClient, _ path: String, method: HTTPMethod = .get, headers: HTTPHeaders = [:], options: RequestOptions = RequestOptions()
) async -> NetworkError? {
    do {
        _ = try await api.data(for: Endpoint<EmptyResponse>(path: path, method: method, headers: headers, options: options))
        return nil
    } catch {
        return error
    }
}

/// Hedging through a real client over a scripted transport, on the manual clock: every request
/// the transport records is one that was sent, and an attempt's wait is a sleeper of the clock.
@Suite(.timeLimit(.minutes(2))) struct HedgingStepTests {
    @Test("an attempt that answers before the delay is not hedged, and the hedge's timer is cancelled")
    func noHedgeBeforeDelay() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(clock: clock)
        transport.script("/quick", [.delayed(.milliseconds(500), .status(200))])
        let api = hedgingClient(transport, clock: clock)
        let call = Task { await failure(api, "quick") }
        await clock.waitForSleepers(2)   // the attempt and the hedge's timer
        clock.advance(by: .milliseconds(500))
        #expect(await call.value == nil)
        #expect(transport.requests(to: "/quick").count == 1)
        #expect(clock.sleeperCount == 0)
        await api.shutdown()
    }

    @Test("after the delay a hedge goes out; its answer wins, the first attempt is cancelled, and the event says so")
    func hedgeWins() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(clock: clock)
        transport.script("/slow", [.delayed(.seconds(60), .status(500)), .status(200)])
        let api = hedgingClient(transport, clock: clock)
        let events = api.events()
        let call = Task { await failure(api, "slow") }
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(1))
        // The first attempt's 500 would have been the answer: the hedge's 200 won, and the call
        // ended without the clock reaching the first's 60 s, so it was cancelled.
        #expect(await call.value == nil)
        #expect(transport.requests(to: "/slow").count == 2)
        #expect(clock.sleeperCount == 0)
        let seen = await collect(events) { $0.contains { if case .finished = $0 { true } else { false } } }
        let hedges = seen.compactMap { event -> Duration? in
            guard case .hedged(_, let after) = event else { return nil }
            return after
        }
        #expect(hedges == [.seconds(1)])
        await api.shutdown()
    }

    @Test("a failed attempt leaves the call to the other one's answer")
    func failureAwaitsTheOther() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(clock: clock)
        transport.script("/flaky", [.delayed(.seconds(2), .status(200)), .fail(.connectionLost(host: "api.test", port: 443, underlying: nil))])
        let api = hedgingClient(transport, clock: clock)
        let call = Task { await failure(api, "flaky") }
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(1))   // the hedge goes out and fails at once
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        #expect(await call.value == nil)
        #expect(transport.requests(to: "/flaky").count == 2)
        await api.shutdown()
    }

    @Test("a POST without an Idempotency-Key is never hedged; one with a key is")
    func onlyRepeatableRequests() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(clock: clock)
        transport.script("/orders", [.delayed(.seconds(5), .status(200))])
        let api = hedgingClient(transport, clock: clock)
        let post = Task { await failure(api, "orders", method: .post) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        #expect(await post.value == nil)
        #expect(transport.requests(to: "/orders").count == 1)

        transport.script("/keyed", [.delayed(.seconds(5), .status(200)), .status(200)])
        let keyed = Task { await failure(api, "keyed", method: .post, headers: ["Idempotency-Key": "k1"]) }
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(1))
        #expect(await keyed.value == nil)
        #expect(transport.requests(to: "/keyed").count == 2)
        await api.shutdown()
    }

    @Test("an exhausted hedge budget sends no hedge")
    func budgetExhausted() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(clock: clock)
        transport.script("/slow", [.delayed(.seconds(5), .status(200)), .status(200)])
        let empty = HedgingPolicy(delay: .fixed(.seconds(1)), budget: RetryBudget(ratio: 0, reserve: 0))
        let api = hedgingClient(transport, clock: clock, hedging: empty)
        let call = Task { await failure(api, "slow") }
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(1))   // the delay passes; the budget has nothing
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(4))
        #expect(await call.value == nil)
        #expect(transport.requests(to: "/slow").count == 1)
        await api.shutdown()
    }

    @Test("a hedge needs a free admission slot and never waits for one: with every slot held, none goes out")
    func hedgeNeedsAFreeSlot() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(clock: clock)
        transport.script("/slow", [.delayed(.seconds(5), .status(200)), .status(200)])
        let api = client(base, transport: transport, retryPolicy: .never, clock: clock) {
            $0.hedging = policy
            $0.limits.maxConcurrentRequests = 1
        }
        let call = Task { await failure(api, "slow") }
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(1))   // the delay passes; the call holds the only slot
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(4))
        #expect(await call.value == nil)
        #expect(transport.requests(to: "/slow").count == 1)
        let stats = try await api.pipelineStats()
        #expect(stats.hedgesRefused == 1)
        #expect(stats.inFlight == 0)
        await api.shutdown()
    }

    @Test("a hedge holds an admission slot while it runs and frees it when the call ends")
    func hedgeHoldsASlot() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(clock: clock)
        transport.script("/slow", [.delayed(.seconds(60), .status(200)), .delayed(.seconds(10), .status(200))])
        transport.script("/other", [.status(200)])
        let api = client(base, transport: transport, retryPolicy: .never, clock: clock) {
            $0.hedging = policy
            $0.limits.maxConcurrentRequests = 2
        }
        let call = Task { await failure(api, "slow") }
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(1))
        while transport.requests(to: "/slow").count < 2, !Task.isCancelled { await Task.yield() }
        #expect(try await api.pipelineStats().inFlight == 2)
        // Both slots are taken (the call's and its hedge's): another call waits for one.
        let other = Task { await failure(api, "other") }
        while try await api.pipelineStats().queued < 1, !Task.isCancelled { await Task.yield() }
        #expect(transport.requests(to: "/other").isEmpty)
        clock.advance(by: .seconds(10))   // the hedge answers; the first attempt is cancelled
        #expect(await call.value == nil)
        #expect(await other.value == nil)
        #expect(transport.requests(to: "/other").count == 1)
        let stats = try await api.pipelineStats()
        #expect(stats.inFlight == 0 && stats.queued == 0 && stats.hedgesRefused == 0)
        await api.shutdown()
    }

    @Test("a request is repeatable by its method or Idempotency-Key, and only with a body that can be read again")
    func repeatableRequests() {
        let url = URL(string: "https://api.test/items/1")!
        #expect(HedgingStep.isRepeatable(HTTPRequest(method: .get, url: url)))
        #expect(!HedgingStep.isRepeatable(HTTPRequest(method: .post, url: url)))
        #expect(HedgingStep.isRepeatable(HTTPRequest(method: .post, url: url, headers: ["Idempotency-Key": "k1"])))
        var put = HTTPRequest(method: .put, url: url)
        put.bodyStream = .data(Data("v".utf8))
        #expect(HedgingStep.isRepeatable(put))
        put.bodyStream = .chunks(AsyncStream<Data> { $0.finish() }, length: 0)
        #expect(!HedgingStep.isRepeatable(put))
    }

    @Test("a request's own policy: disabled on a client that hedges, and its own on a client that does not")
    func perRequestOverride() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(clock: clock)
        transport.script("/off", [.delayed(.seconds(5), .status(200)), .status(200)])
        let api = hedgingClient(transport, clock: clock)
        let off = Task { await failure(api, "off", options: RequestOptions(hedging: .disabled)) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        #expect(await off.value == nil)
        #expect(transport.requests(to: "/off").count == 1)

        transport.script("/on", [.delayed(.seconds(5), .status(200)), .status(200)])
        let plain = hedgingClient(transport, clock: clock, hedging: nil)
        let on = Task { await failure(plain, "on", options: RequestOptions(hedging: policy)) }
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(1))
        #expect(await on.value == nil)
        #expect(transport.requests(to: "/on").count == 2)
        await api.shutdown()
        await plain.shutdown()
    }

    @Test("a percentile delay uses its fallback until enough latencies are known, then the origin's percentile")
    func percentileDelay() {
        let percentile = HedgingPolicy(delay: .percentile(0.9, window: 10, minimumSamples: 3, fallback: .seconds(1)))
        var state = HedgingState(budget: nil)
        let origin = HTTPOrigin(URL(string: "https://api.test/a")!)!
        #expect(state.begin(origin, policy: percentile) == .seconds(1))
        for milliseconds in [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 200] {
            state.record(.milliseconds(milliseconds), of: origin, policy: percentile)
        }
        // The last 10: 20 … 100 and 200; their p90 is 200 ms rounded up to the next sample, and
        // the hedge waits just past it, so an attempt of 200 ms is on time.
        #expect(state.begin(origin, policy: percentile) == .milliseconds(200) + .microseconds(1))
    }

    @Test("against a real server over the libcurl transport: the hedge's answer wins and the slow first request is abandoned")
    func realServer() async throws {
        try await withScriptedServer { server in
            try await server.script("/slow", [ScriptedResponse.delayed(60, body: "slow"), .text(200, "fast")])
            let clock = ManualClock()
            let api = client(server.baseURL, retryPolicy: .never, clock: clock) { $0.hedging = policy }
            let call = Task { try await api.data(for: Endpoint<EmptyResponse>(path: "slow")).body }
            await clock.waitForSleepers(1)   // the hedge's timer
            while try await server.requests(path: "/slow").isEmpty { await Task.yield() }
            clock.advance(by: .seconds(1))
            #expect(String(decoding: try await call.value, as: UTF8.self) == "fast")
            #expect(try await server.requests(path: "/slow").count == 2)
            await api.shutdown()
        }
    }
}
