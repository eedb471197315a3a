import Foundation
import Testing

@testable import Courier

@Suite struct CircuitBreakerTableTests {
    private let policy = CircuitBreakerPolicy(window: .calls(1), minimumCalls: 1, openDuration: .seconds(30), openJitter: 0)

    private func key(_ host: String) -> CircuitBreakerTable.Key {
        CircuitBreakerTable.Key(origin: HTTPOrigin("https://\(host)")!, policy: policy)
    }

    private func permit(_ admission: CircuitBreakerTable.Admission) -> CircuitBreakerTable.Ticket? {
        if case .permitted(let ticket) = admission { ticket } else { nil }
    }

    @Test("bounded: a new origin takes the place of a closed idle breaker, never of an open one")
    func evictsClosedIdleFirst() throws {
        var table = CircuitBreakerTable(capacity: 2)
        let failing = try #require(permit(table.acquire(key("down.test"), now: .zero).0))
        #expect(table.record(.failure, of: failing, duration: .zero, now: .zero, random: 0)?.to == .open(until: .seconds(30)))
        _ = table.acquire(key("a.test"), now: .seconds(1))
        _ = table.acquire(key("b.test"), now: .seconds(2))   // full: a.test, closed, goes
        #expect(table.count == 2)
        #expect(table.state(of: key("down.test")) == .open(until: .seconds(30)))
        #expect(table.state(of: key("a.test")) == nil)
        #expect(table.state(of: key("b.test")) == .closed)
    }

    @Test("an outcome of an evicted breaker's attempt counts nowhere, not in its successor")
    func evictedTicketIsIgnored() throws {
        var table = CircuitBreakerTable(capacity: 1)
        let old = try #require(permit(table.acquire(key("a.test"), now: .zero).0))
        _ = table.acquire(key("b.test"), now: .seconds(1))
        _ = table.acquire(key("a.test"), now: .seconds(2))   // a new breaker for a.test
        #expect(table.record(.failure, of: old, duration: .zero, now: .seconds(3), random: 0) == nil)
        #expect(table.state(of: key("a.test")) == .closed)
    }

    @Test("the failures that count: 5xx, timeouts, connection and protocol errors; not a 4xx, a cancellation or the device offline")
    func outcomes() {
        func outcome(_ error: NetworkError) -> CircuitBreaker.Outcome { CircuitBreakerStep.outcome(of: .failure(error)) }
        #expect(CircuitBreakerStep.outcome(of: .success(HTTPResponse(status: 503))) == .failure)
        #expect(CircuitBreakerStep.outcome(of: .success(HTTPResponse(status: 404))) == .success)
        #expect(outcome(.timeout(.attempt, underlying: nil)) == .failure)
        #expect(outcome(.cannotConnect(host: "h", port: 1, reason: .refused, underlying: nil)) == .failure)
        #expect(outcome(.connectionLost(host: "h", port: 1, underlying: nil)) == .failure)
        #expect(outcome(.malformedResponse("cut", underlying: nil)) == .failure)
        #expect(outcome(.invalidResponse("bad")) == .failure)
        #expect(outcome(.serverError(HTTPResponse(status: 502))) == .failure)
        #expect(outcome(.notFound(HTTPResponse(status: 404))) == .success)
        #expect(outcome(.cancelled) == .ignored)
        #expect(outcome(.noConnection(underlying: nil)) == .ignored)
        #expect(outcome(.securityError("plain http")) == .ignored)
    }
}
