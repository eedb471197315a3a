import CourierTesting
import Foundation
import Testing

@testable import Courier

/// `print(event)` for request events: the id and what happened in a line, URLs redacted.
@Suite struct RequestEventDescriptionTests {
    @Test("each event in a line")
    func lines() {
        let id = RequestID(3)
        #expect(RequestEvent.started(id, method: .post, url: "https://a.example/x", operation: nil).description == "#3 started: POST https://a.example/x")
        #expect(RequestEvent.started(id, method: .get, url: "https://a.example/u/1", operation: "getUser").description == "#3 started: GET https://a.example/u/1 (getUser)")
        #expect(RequestEvent.attempt(id, number: 2).description == "#3 attempt 2")
        #expect(RequestEvent.redirected(id, status: 302, to: "https://b.example/").description == "#3 redirected: 302 to https://b.example/")
        #expect(RequestEvent.retrying(id, attempt: 1, delay: .milliseconds(1500), reason: "503").description
            == "#3 retrying in 1.5 s after attempt 1: 503")
        #expect(RequestEvent.finished(id, status: 200, attempts: 1, duration: .milliseconds(340)).description
            == "#3 finished: 200 after 1 attempt in 340 ms")
        #expect(RequestEvent.failed(id, error: .cancelled, attempts: 2, duration: .seconds(2)).description
            .hasPrefix("#3 failed after 2 attempts in 2 s: "))
        #expect(RequestEvent.servedFromCache(id, method: .get, url: "https://a.example/x", status: 200, age: .seconds(42)).description
            == "#3 served from cache: GET https://a.example/x, 200, age 42 s")
        #expect(RequestEvent.shared(id, method: .post, url: "https://a.example/graphql", operation: "Hero").description
            == "#3 shares an identical query in flight: POST https://a.example/graphql (Hero)")
        #expect(RequestEvent.circuitBreakerChanged(id, origin: "https://a.example:443", from: .closed, to: .open(for: .milliseconds(31_500)))
            .description == "#3 circuit breaker of https://a.example:443: closed → open for 31.5 s")
        #expect(RequestEvent.circuitBreakerChanged(id, origin: "https://a.example:443", from: .halfOpen, to: .closed)
            .description == "#3 circuit breaker of https://a.example:443: half-open → closed")
    }

    @Test("a real call's events print with the redacted URL and never a secret")
    func realCall() async throws {
        let api = client(URL(string: "https://api.test")!, transport: InMemoryTransport(always: HTTPResponse(status: 200)), clock: ManualClock())
        let stream = api.events()
        _ = try await api.data(for: Endpoint<Data>(path: "items", query: ["access_token": "tok1"]))
        let seen = await finalEvents(stream, count: 1)
        #expect(seen.map(\.description) == [
            "#1 started: GET https://api.test/items?access_token=%3Credacted%3E", "#1 attempt 1", "#1 finished: 200 after 1 attempt in 0 ms",
        ])
        await api.shutdown()
    }

    @Test("durations print in ms under a second, in seconds from there")
    func durations() {
        #expect(Duration.zero.readable == "0 ms")
        #expect(Duration.microseconds(1499).readable == "1 ms")
        #expect(Duration.milliseconds(999).readable == "999 ms")
        #expect(Duration.seconds(1).readable == "1 s")
        #expect(Duration.milliseconds(61_050).readable == "61.05 s")
        #expect(Duration.milliseconds(2_007).readable == "2.007 s")
    }
}
