import CourierTesting
import Foundation
import Testing

@testable import Courier

/// A breaker that judges the last 4 attempts, opens at half of them failed for exactly 30 s (no
/// jitter), and lets 2 probes through.
private let policy = CircuitBreakerPolicy(window: .calls(4), minimumCalls: 4, openDuration: .seconds(30), openJitter: 0, halfOpenProbes: 2)
private let base = URL(string: "https://api.test")!
private let origin = "https://api.test:443"

private func breakerClient(
    _ transport: ScriptedTransport, clock: ManualClock, breaker: CircuitBreakerPolicy? = policy
) -> APIClient {
    client(base, transport: transport, retryPolicy: .never, clock: clock) { $0.circuitBreaker = breaker }
}

/// The call's error, or `nil` if it succeeded.
private func failure(_ api: APIClient, _ path: String, options: RequestOptions = RequestOptions()) async -> NetworkError? {
    do {
        _ = try await api.data(for: Endpoint<EmptyResponse>(path: path, options: options))
        return nil
    } catch {
        return error
    }
}

private func isBreakerEvent(_ event: RequestEvent) -> Bool {
    if case .circuitBreakerChanged = event { true } else { false }
}

/// The breaker's changes among `events`, as `from → to`.
private func changes(_ events: [RequestEvent]) -> [String] {
    events.compactMap { event in
        guard case .circuitBreakerChanged(_, let name, let from, let to) = event else { return nil }
        return "\(name) \(from) → \(to)"
    }
}

/// The breaker through a real client over a scripted transport, on the manual clock: every
/// request the transport records is one that reached the server.
@Suite(.timeLimit(.minutes(2))) struct CircuitBreakerStepTests {
    @Test("it opens once half the window failed; while open no request is sent and the error names the origin and the wait")
    func opensAndRefuses() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(clock: clock)
        transport.script("/down", [.status(503), .fail(.cannotConnect(host: "api.test", port: 443, reason: .refused, underlying: nil))])
        transport.script("/fine", [.status(200)])
        let api = breakerClient(transport, clock: clock)
        #expect(await failure(api, "fine") == nil)
        #expect(await failure(api, "fine") == nil)
        for _ in 0..<2 { #expect(await failure(api, "down") != nil) }   // 2 of 4 failed: opens
        #expect(transport.requests.count == 4)

        clock.advance(by: .seconds(10))
        for path in ["down", "fine", "other"] {
            let error = await failure(api, path)
            guard case .circuitOpen(let name, let retryAfter)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(name == origin)
            #expect(retryAfter == .seconds(20))
            #expect(error?.isRetryable == false)
            #expect(error?.category == .transport)
            #expect("\(error!)" == "circuitOpen https://api.test:443: not called, probes again in 20 s")
        }
        #expect(transport.requests.count == 4)   // nothing reached the server
        await api.shutdown()
    }

    @Test("an open breaker is not retried: one refused attempt, whatever the retry policy")
    func notRetried() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(clock: clock)
        transport.script("/down", [.status(503)])
        let api = client(base, transport: transport, retryPolicy: immediateRetries, clock: clock) {
            $0.circuitBreaker = CircuitBreakerPolicy(window: .calls(2), minimumCalls: 2, openJitter: 0)
        }
        #expect(await failure(api, "down") != nil)   // attempts 1 and 2 fail: opens; attempt 3 refused
        #expect(transport.requests.count == 2)
        guard case .circuitOpen? = await failure(api, "down") else { Issue.record("not open"); return }
        #expect(transport.requests.count == 2)
        await api.shutdown()
    }

    @Test("half-open lets only its probes through, closes after good probes, and every change is an event, in order")
    func halfOpenProbesThenCloses() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(clock: clock)
        transport.script("/down", [.status(500)])
        transport.script("/slow", [.delayed(.seconds(1), .status(200))])
        transport.script("/up", [.status(200)])
        let api = breakerClient(transport, clock: clock)
        let events = api.events()
        for _ in 0..<4 { _ = await failure(api, "down") }
        clock.advance(by: .seconds(30))

        // Two probes, held by the server for 1 s; a third call is refused meanwhile.
        let probes = (0..<2).map { _ in Task { await failure(api, "slow") } }
        await clock.waitForSleepers(2)
        let refused = await failure(api, "slow")
        guard case .circuitOpen(origin, .zero)? = refused else { Issue.record("got \(String(describing: refused))"); return }
        #expect(transport.requests(to: "/slow").count == 2)
        clock.advance(by: .seconds(1))
        for probe in probes { #expect(await probe.value == nil) }

        #expect(await failure(api, "up") == nil)   // closed: it goes
        #expect(transport.requests(to: "/up").count == 1)
        let seen = await collect(events) { changes($0).count == 3 }
        #expect(changes(seen) == [
            "\(origin) closed → open for 30 s", "\(origin) open for 0 ms → half-open", "\(origin) half-open → closed",
        ])
        await api.shutdown()
    }

    @Test("a 4xx is an answer, not a failure: the breaker stays closed")
    func clientErrorsDoNotCount() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(clock: clock)
        transport.script("/missing", [.status(404)])
        transport.script("/refused", [.status(422)])
        let api = breakerClient(transport, clock: clock)
        let events = api.events()
        for _ in 0..<10 {
            guard case .notFound? = await failure(api, "missing") else { Issue.record("not a 404"); return }
            _ = await failure(api, "refused")
        }
        #expect(transport.requests.count == 20)
        _ = await failure(api, "last")   // a 404 too; its final event ends the collection
        let seen = await collect(events) { $0.count(where: { if case .failed = $0 { true } else { false } }) == 21 }
        #expect(!seen.contains(where: isBreakerEvent))
        await api.shutdown()
    }

    @Test("a request's own policy: its breaker on a client without one, and disabled on a client with one")
    func perRequestOverride() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(clock: clock)
        transport.script("/down", [.status(503)])
        // No breaker for the client: only the calls with a policy share one.
        let plain = breakerClient(transport, clock: clock, breaker: nil)
        let guarded = RequestOptions(circuitBreaker: policy)
        for _ in 0..<4 { _ = await failure(plain, "down", options: guarded) }
        guard case .circuitOpen? = await failure(plain, "down", options: guarded) else { Issue.record("not open"); return }
        #expect(transport.requests.count == 4)
        guard case .serverError? = await failure(plain, "down") else { Issue.record("the client has no breaker"); return }
        #expect(transport.requests.count == 5)
        await plain.shutdown()

        // The client's breaker open; a call that disables it still goes.
        let open = breakerClient(transport, clock: clock)
        for _ in 0..<4 { _ = await failure(open, "down") }
        guard case .circuitOpen? = await failure(open, "down") else { Issue.record("not open"); return }
        guard case .serverError? = await failure(open, "down", options: RequestOptions(circuitBreaker: .disabled)) else {
            Issue.record("disabled for the call"); return
        }
        #expect(transport.requests.count == 10)
        await open.shutdown()
    }

    @Test("against a real server over the libcurl transport: once open, the server sees nothing; after the open duration one probe reaches it and closes the breaker")
    func realServer() async throws {
        try await withScriptedServer { server in
            try await server.script("/flaky", (0..<4).map { _ in ScriptedResponse.status(503) } + [.status(200)])
            let clock = ManualClock()
            let single = CircuitBreakerPolicy(window: .calls(4), minimumCalls: 4, openDuration: .seconds(30), openJitter: 0, halfOpenProbes: 1)
            let api = client(server.baseURL, retryPolicy: .never, clock: clock) { $0.circuitBreaker = single }
            for _ in 0..<4 {
                guard case .serverError? = await failure(api, "flaky") else { Issue.record("not the server's 503"); return }
            }
            for _ in 0..<3 {
                guard case .circuitOpen(_, let retryAfter)? = await failure(api, "flaky") else { Issue.record("not open"); return }
                #expect(retryAfter == .seconds(30))
            }
            #expect(try await server.requests(path: "/flaky").count == 4)
            clock.advance(by: .seconds(30))
            #expect(await failure(api, "flaky") == nil)   // the probe: the server's 200
            #expect(await failure(api, "flaky") == nil)   // closed again
            #expect(try await server.requests(path: "/flaky").count == 6)
            await api.shutdown()
        }
    }

    @Test("each origin has its own breaker")
    func perOrigin() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(clock: clock)
        transport.script("/down", [.status(503)])
        transport.script("/up", [.status(200)])
        let api = breakerClient(transport, clock: clock)
        for _ in 0..<4 { _ = await failure(api, "down") }
        guard case .circuitOpen? = await failure(api, "down") else { Issue.record("not open"); return }
        let other = try await api.data(for: HTTPRequest(method: .get, url: URL(string: "https://other.test/up")!))
        #expect(other.status == 200)
        await api.shutdown()
    }
}
