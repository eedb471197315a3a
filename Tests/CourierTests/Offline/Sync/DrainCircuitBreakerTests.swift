import CourierTesting
import Foundation
import Testing

@testable import Courier

/// The drain and an open circuit breaker: "not now", not a failed attempt.
@Suite(.timeLimit(.minutes(2))) struct DrainCircuitBreakerTests {
    @Test("a replay refused by an open breaker is not sent, backs off until the probes, and counts no attempt; the probe delivers it")
    func openBreakerBacksOffWithoutAnAttempt() async throws {
        let clock = ManualClock()
        let start = clock.currentDate
        let transport = ScriptedTransport(clock: clock)
        transport.script("/down", [.status(503)])
        transport.script("/notes", [.status(201)])
        let api = client(URL(string: "https://api.test")!, transport: transport, retryPolicy: .never, clock: clock) {
            $0.circuitBreaker = CircuitBreakerPolicy(window: .calls(2), minimumCalls: 2, openDuration: .seconds(30), openJitter: 0, halfOpenProbes: 1)
            $0.connectivity = .init(debounce: .zero, watchesLink: false)
            $0.offline = .init(retryBackoff: .constant(.seconds(10)))
        }
        let events = api.offline.events()
        for _ in 0..<2 { _ = try? await api.data(for: Endpoint<EmptyResponse>(path: "down")) }   // opens
        let id = try await api.offline.enqueue(noteWrite(1))

        let progress = try await api.offline.sync()
        #expect(progress.done == 0)
        #expect(transport.requests(to: "/notes").isEmpty)   // nothing sent
        let waiting = try #require(try await api.offline.items().first)
        #expect(waiting.id == id && waiting.state == .retrying && waiting.attempts == 0)
        #expect(waiting.nextAttemptAt == start.addingTimeInterval(30))   // when the breaker lets a probe through
        #expect(waiting.lastError?.hasPrefix("circuitOpen https://api.test:443") == true)

        clock.advance(by: .seconds(29))
        _ = try await api.offline.sync()
        #expect(transport.requests(to: "/notes").isEmpty)   // not due yet
        clock.advance(by: .seconds(1))
        _ = try await api.offline.sync()
        #expect(transport.requests(to: "/notes").count == 1)   // the probe, which closes the breaker
        #expect(try await api.offline.items().isEmpty)
        let seen = await collect(events) { $0.contains { if case .delivered = $0 { true } else { false } } }
        #expect(seen.contains { if case .retrying(id, 0, let error) = $0 { error.hasPrefix("circuitOpen") } else { false } })
        await api.shutdown()
    }
}
