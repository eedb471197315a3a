import CourierTesting
import Foundation
import Testing

@testable import Courier

/// `client.events(for:)` against the scripted server: the events as they arrive, reconnections
/// with `Last-Event-ID` (what the server saw), what ends the sequence, cancellation. Waits for
/// reconnections are on a `ManualClock` where the test checks the delay; elsewhere the server
/// asks for a 1 ms one. Ordering is asserted with server-side gates, never with timing.
@Suite(.timeLimit(.minutes(5))) struct APIClientServerSentEventsTests {
    /// Counts the requests its client sends, and marks them.
    struct CountingInterceptor: RequestInterceptor {
        let count = Locked(0)
        func intercept(_ request: HTTPRequest, context: RequestContext) async throws -> RequestInterception {
            count.withLock { $0 += 1 }
            var request = request
            request.headers.add(name: "X-Tenant", value: "acme")
            return .proceed(request)
        }
    }

    @Test("each event arrives when its piece does: types, ids, data over lines; the chain applies; a stream that ends reconnects")
    func eventsAsTheyArrive() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/feed", [
                .events(EventStreamSpec(pieces: [
                    "retry: 1\n: hello\nevent: greeting\nid: 1\ndata: line one\ndata: line two\n\n",
                    "data: sp",
                    "lit\r\n\r\n",
                ], gated: true)),
                .status(204),
            ])
            let logger = CapturingLogger()
            let interceptor = CountingInterceptor()
            let api = client(server.baseURL, retryPolicy: .never) {
                $0.requestInterceptors = [interceptor]
                $0.logging = .init(logger: logger)
                $0.caching = .init()
            }
            var iterator = api.events(for: Endpoint<Data>(path: "feed", version: .v1)).makeAsyncIterator()
            // The second piece cannot have been sent: its gate is closed.
            #expect(try await iterator.next() == ServerSentEvent(type: "greeting", data: "line one\nline two", id: "1", retry: .milliseconds(1)))
            try await server.release(path: "/v1/feed")
            try await server.release(path: "/v1/feed")
            #expect(try await iterator.next() == ServerSentEvent(data: "split", id: "1"))
            #expect(try await iterator.next() == nil)   // the stream ended; the reconnection got 204
            #expect(try await iterator.next() == nil)

            let sent = try await server.requests(path: "/v1/feed")
            #expect(sent.count == 2)
            #expect(sent.map { $0.header("Accept") } == ["text/event-stream", "text/event-stream"])
            #expect(sent.map { $0.header("Cache-Control") } == ["no-cache", "no-cache"])
            #expect(sent.map { $0.header("X-Tenant") } == ["acme", "acme"])
            #expect(sent.map { $0.header("Last-Event-ID") } == [nil, "1"])
            #expect(interceptor.count.withLock { $0 } == 2)
            #expect(logger.lines("request").count == 2)
        }
    }

    @Test("after the stream ends the reconnection waits the server's retry on the client's clock, then sends Last-Event-ID")
    func reconnectsAfterTheServersRetry() async throws {
        try await withScriptedServer { server in
            try await server.script("/feed", [
                .events(["retry: 10\nid: 1\ndata: one\n\nid: 2\ndata: two\n\n"]),
                .events(["data: three\n\n"]),
                .status(204),
            ])
            let clock = ManualClock()
            let api = client(server.baseURL, retryPolicy: .never, clock: clock)
            let events = api.events(for: Endpoint<Data>(path: "feed"))
            let reader = Task { try await collectEvents(events) }
            for connection in 1...2 {
                await clock.waitForSleepers(1)
                #expect(clock.pendingDelays == [.milliseconds(10)])
                #expect(try await server.requests(path: "/feed").count == connection)
                clock.advance(by: .milliseconds(10))
            }
            #expect(try await reader.value == [
                ServerSentEvent(data: "one", id: "1", retry: .milliseconds(10)),
                ServerSentEvent(data: "two", id: "2"),
                ServerSentEvent(data: "three", id: "2"),
            ])
            #expect(try await server.requests(path: "/feed").map { $0.header("Last-Event-ID") } == [nil, "2", "2"])
        }
    }

    @Test("without a retry from the server the reconnection waits the retryDelay given")
    func reconnectsAfterTheGivenDelay() async throws {
        try await withScriptedServer { server in
            try await server.script("/feed", [.events(["data: one\n\n"]), .status(204)])
            let clock = ManualClock()
            let api = client(server.baseURL, retryPolicy: .never, clock: clock)
            let events = api.events(for: Endpoint<Data>(path: "feed"), retryDelay: .seconds(7))
            let reader = Task { try await collectEvents(events) }
            await clock.waitForSleepers(1)
            #expect(clock.pendingDelays == [.seconds(7)])
            clock.advance(by: .seconds(7))
            #expect(try await reader.value == [ServerSentEvent(data: "one")])
        }
    }

    @Test("a stream cut mid-event: the partial event is discarded, the reconnection resumes from the last complete one")
    func cutMidEvent() async throws {
        try await withScriptedServer { server in
            try await server.script("/feed", [
                .events(["retry: 1\nid: 1\ndata: one\n\n", "id: 2\ndata: par"], end: .cut),
                .events(["id: 3\ndata: three\n\n", "data: tail"], end: .close),
                .status(204),
            ])
            let api = client(server.baseURL, retryPolicy: .never)
            let events = try await collectEvents(api.events(for: Endpoint<Data>(path: "feed")))
            #expect(events == [
                ServerSentEvent(data: "one", id: "1", retry: .milliseconds(1)),
                ServerSentEvent(data: "three", id: "3"),
            ])
            #expect(try await server.requests(path: "/feed").map { $0.header("Last-Event-ID") } == [nil, "1", "3"])
        }
    }

    @Test("a stream silent past the stall timeout is broken: the sequence reconnects")
    func stallReconnects() async throws {
        try await withScriptedServer { server in
            try await server.script("/feed", [.events(["retry: 1\nid: a\ndata: one\n\n"], end: .hang), .status(204)])
            let api = client(server.baseURL, retryPolicy: .never)
            let events = try await collectEvents(api.events(for: Endpoint<Data>(path: "feed"), stallTimeout: .seconds(1)))
            #expect(events.map(\.data) == ["one"])
            #expect(try await server.requests(path: "/feed").map { $0.header("Last-Event-ID") } == [nil, "a"])
            #expect(try await server.waitForDisconnect(path: "/feed"))
        }
    }

    @Test("a 204 ends the sequence at once, without reconnecting")
    func noContentStops() async throws {
        try await withScriptedServer { server in
            try await server.script("/feed", [.status(204)])
            let api = client(server.baseURL, retryPolicy: .never)
            #expect(try await collectEvents(api.events(for: Endpoint<Data>(path: "feed"))).isEmpty)
            #expect(try await server.requests(path: "/feed").count == 1)
        }
    }

    @Test("whenStreamEnds: .finish: a finite stream's end ends the sequence (the incomplete tail dropped), without reconnecting")
    func finiteStreamEnds() async throws {
        try await withScriptedServer { server in
            // Were it to reconnect, the second answer would give one more event.
            try await server.script("/feed", [
                .events(["id: 1\ndata: one\n\nevent: complete\ndata:\n\n", "data: tail"], end: .close),
                .events(["data: again\n\n"]),
            ])
            let api = client(server.baseURL, retryPolicy: .never)
            let events = try await collectEvents(api.events(for: Endpoint<Data>(path: "feed"), whenStreamEnds: .finish))
            #expect(events == [ServerSentEvent(data: "one", id: "1"), ServerSentEvent(type: "complete", data: "", id: "1")])
            #expect(try await server.requests(path: "/feed").count == 1)
        }
    }

    @Test("whenStreamEnds: .finish still reconnects a broken stream (cut mid-event), then ends at the normal end")
    func finiteStreamReconnectsWhenCut() async throws {
        try await withScriptedServer { server in
            try await server.script("/feed", [
                .events(["retry: 1\nid: 1\ndata: one\n\n", "id: 2\ndata: par"], end: .cut),
                .events(["id: 3\ndata: three\n\n"], end: .close),
                .events(["data: again\n\n"]),
            ])
            let api = client(server.baseURL, retryPolicy: .never)
            let events = try await collectEvents(api.events(for: Endpoint<Data>(path: "feed"), whenStreamEnds: .finish))
            #expect(events.map(\.data) == ["one", "three"])
            #expect(try await server.requests(path: "/feed").map { $0.header("Last-Event-ID") } == [nil, "1"])
        }
    }

    @Test("a 401 refreshes the session once, then the stream opens with the new token")
    func unauthorizedRefreshes() async throws {
        try await withScriptedServer { server in
            try await server.script("/auth/refresh", [refreshAnswer(access: "new")])
            try await server.script("/v1/feed", [
                ScriptedResponse.events(["data: hello\n\n"], end: .hang)
                    .when(header: "Authorization", is: "Bearer new", otherwise: .json(401, #"{"error":"expired"}"#))
            ])
            let api = client(server.baseURL, retryPolicy: .never) { $0.session = .init(persistence: InMemoryTokenPersistence()) }
            try await api.session.signIn(Tokens(accessToken: "old", refreshToken: "r1", expiresAt: nil))
            for try await event in api.events(for: Endpoint<Data>(path: "feed", version: .v1)) {
                #expect(event.data == "hello")
                break
            }
            #expect(try await server.requests(path: "/auth/refresh").count == 1)
            #expect(try await server.requests(path: "/v1/feed").map { $0.header("Authorization") } == ["Bearer old", "Bearer new"])
            #expect(try await server.waitForDisconnect(path: "/v1/feed"))
        }
    }

    @Test("cancelling the consuming task closes the connection (the server sees it) and nothing reconnects")
    func cancellationClosesTheConnection() async throws {
        try await withScriptedServer { server in
            try await server.script("/feed", [.events(["retry: 1\ndata: first\n\n"], end: .hang)])
            let api = client(server.baseURL, retryPolicy: .never)
            let events = api.events(for: Endpoint<Data>(path: "feed"))
            let (received, arrived) = AsyncStream.makeStream(of: ServerSentEvent.self)
            let reader = Task {
                for try await event in events { arrived.yield(event) }
            }
            var iterator = received.makeAsyncIterator()
            #expect(await iterator.next()?.data == "first")
            reader.cancel()
            guard case .cancelled? = await failure(of: reader) else { Issue.record("the reader did not end cancelled"); return }
            #expect(try await server.waitForDisconnect(path: "/feed"))
            #expect(try await server.requests(path: "/feed").count == 1)
        }
    }

    @Test("cancelling during the wait to reconnect ends the sequence: no further request")
    func cancellationWhileWaiting() async throws {
        try await withScriptedServer { server in
            try await server.script("/feed", [.events(["data: first\n\n"])])
            let clock = ManualClock()
            let api = client(server.baseURL, retryPolicy: .never, clock: clock)
            let events = api.events(for: Endpoint<Data>(path: "feed"))
            let reader = Task { try await collectEvents(events) }
            await clock.waitForSleepers(1)
            reader.cancel()
            guard case .cancelled? = await failure(of: reader) else { Issue.record("the reader did not end cancelled"); return }
            #expect(clock.sleeperCount == 0)
            #expect(try await server.requests(path: "/feed").count == 1)
        }
    }

    @Test("leaving the loop (dropping the iterator) closes the connection")
    func droppingClosesTheConnection() async throws {
        try await withScriptedServer { server in
            try await server.script("/feed", [.events(["data: first\n\n"], end: .hang)])
            let api = client(server.baseURL, retryPolicy: .never)
            for try await event in api.events(for: Endpoint<Data>(path: "feed")) {
                #expect(event.data == "first")
                break
            }
            #expect(try await server.waitForDisconnect(path: "/feed"))
            #expect(try await server.requests(path: "/feed").count == 1)
        }
    }

    @Test("a Content-Type other than text/event-stream, an error status or another 2xx throw, without reconnecting")
    func refusalsThrow() async throws {
        try await withScriptedServer { server in
            try await server.script("/plain", [.text(200, "data: x\n\n", headers: ["Content-Type": "text/plain"])])
            try await server.script("/untyped", [.text(200, "data: x\n\n")])
            try await server.script("/missing", [.json(404, #"{"message":"no such feed"}"#)])
            try await server.script("/created", [ScriptedResponse(status: 201, events: EventStreamSpec(pieces: ["data: x\n\n"]))])
            let api = client(server.baseURL, retryPolicy: .never)
            for path in ["plain", "untyped", "created"] {
                let error = await thrown { () throws(NetworkError) in try await collectEvents(api.events(for: Endpoint<Data>(path: path))) }
                guard case .invalidResponse(let reason)? = error else { Issue.record("\(path): got \(String(describing: error))"); continue }
                #expect(reason.contains(path == "created" ? "201" : "text/event-stream"))
            }
            let missing = await thrown { () throws(NetworkError) in try await collectEvents(api.events(for: Endpoint<Data>(path: "missing"))) }
            guard case .notFound(let response)? = missing else { Issue.record("got \(String(describing: missing))"); return }
            #expect(String(decoding: response.body, as: UTF8.self).contains("no such feed"))
            for path in ["/plain", "/untyped", "/missing", "/created"] {
                #expect(try await server.requests(path: path).count == 1, "\(path) was requested again")
            }
        }
    }

    @Test("a line or event over maxEventBytes throws responseTooLarge and closes the connection")
    func oversizedEventThrows() async throws {
        try await withScriptedServer { server in
            try await server.script("/feed", [
                .events(["data: small\n\n", "data: " + String(repeating: "x", count: 2000) + "\n\n"], end: .hang)
            ])
            let api = client(server.baseURL, retryPolicy: .never)
            var received: [String] = []
            do {
                for try await event in api.events(for: Endpoint<Data>(path: "feed"), maxEventBytes: 1000) { received.append(event.data) }
                Issue.record("an oversized event did not throw")
            } catch {
                guard case .responseTooLarge(1000)? = error as? NetworkError else { Issue.record("got \(error)"); return }
            }
            #expect(received == ["small"])
            #expect(try await server.waitForDisconnect(path: "/feed"))
        }
    }

    @Test("maxConsecutiveFailures: a dead server ends the sequence with the last failure after that many attempts")
    func deadServerGivesUp() async throws {
        try await withScriptedServer { server in
            let url = try await server.switchableURL(up: false)
            let interceptor = CountingInterceptor()
            let api = client(url, retryPolicy: .never) { $0.requestInterceptors = [interceptor] }
            let events = api.events(for: Endpoint<Data>(path: "feed"), retryDelay: .milliseconds(1), maxConsecutiveFailures: 3)
            let error = await thrown { () throws(NetworkError) in try await collectEvents(events) }
            guard case .cannotConnect(_, _, .refused, _)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(interceptor.count.withLock { $0 } == 3)
        }
    }

    @Test("arguments out of range throw invalidRequest from the first next(), before anything is sent")
    func invalidArguments() async throws {
        let api = client(URL(string: "http://127.0.0.1:9")!, retryPolicy: .never)
        for events in [
            api.events(for: Endpoint<Data>(path: "feed"), maxConsecutiveFailures: 0),
            api.events(for: Endpoint<Data>(path: "feed"), maxEventBytes: 0),
            api.events(for: Endpoint<Data>(path: "feed"), retryDelay: .seconds(-1)),
            api.events(for: Endpoint<Data>(path: "feed"), stallTimeout: .zero),
        ] {
            let error = await thrown { () throws(NetworkError) in try await collectEvents(events) }
            guard case .invalidRequest? = error else { Issue.record("got \(String(describing: error))"); continue }
        }
    }
}

/// Reads every event of `events` until it ends, with the sequence's typed error.
private func collectEvents(_ events: ServerSentEvents) async throws(NetworkError) -> [ServerSentEvent] {
    var all: [ServerSentEvent] = []
    var iterator = events.makeAsyncIterator()
    while let event = try await iterator.next() { all.append(event) }
    return all
}
