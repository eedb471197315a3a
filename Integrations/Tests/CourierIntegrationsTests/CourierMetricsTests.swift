import Courier
import CourierMetrics
import CourierTesting
import Foundation
import MetricsTestKit
import Testing

@Suite struct CourierMetricsTests {
    @Test("requests are counted and timed by method, host and status class; retries and errors by kind")
    func requests() async throws {
        let metrics = TestMetrics()
        let transport = ScriptedTransport()
        transport.script("/v1/users/1", [.json(#"{"id":1,"name":"Ada"}"#)])
        transport.script("/v1/users/2", [.status(503), .json(#"{"id":2,"name":"Bo"}"#)])
        transport.script("/v1/users/3", [.status(404)])
        transport.script("/v1/down", [.fail(.noConnection(underlying: nil))])
        transport.script("/v1/notes", method: .post, [.status(201)])
        let client = APIClient(configuration: configuration(transport))
        let exporter = CourierMetrics(client: client, factory: metrics)
        let exported = Task { await exporter.run(pollingEvery: nil) }

        _ = try await client.send(Endpoint<User>(path: "users/1", version: .v1))
        _ = try await client.send(Endpoint<User>(path: "users/2", version: .v1))
        _ = try? await client.send(Endpoint<User>(path: "users/3", version: .v1))
        _ = try? await client.send(Endpoint<User>(path: "down", version: .v1, options: RequestOptions(retryPolicy: .never)))
        _ = try await client.send(Endpoint<EmptyResponse>(path: "notes", method: .post, body: ["text": "hi"], version: .v1))
        await client.shutdown()
        await exported.value

        let get = [("method", "GET"), ("host", "api.example.com")]
        #expect(try metrics.expectCounter("courier_requests_total", get + [("status_class", "2xx")]).totalValue == 2)
        #expect(try metrics.expectCounter("courier_requests_total", get + [("status_class", "4xx")]).totalValue == 1)
        #expect(try metrics.expectCounter("courier_requests_total", get + [("status_class", "error")]).totalValue == 1)
        let post = [("method", "POST"), ("host", "api.example.com")]
        #expect(try metrics.expectCounter("courier_requests_total", post + [("status_class", "2xx")]).totalValue == 1)
        #expect(try metrics.expectTimer("courier_request_duration_seconds", get + [("status_class", "2xx")]).values.count == 2)
        #expect(try metrics.expectCounter("courier_request_retries_total", get).totalValue == 1)
        #expect(try metrics.expectCounter("courier_request_errors_total", get + [("error", "http_status")]).totalValue == 1)
        #expect(try metrics.expectCounter("courier_request_errors_total", get + [("error", "no_connection")]).totalValue == 1)
        // No label carries a path or an id.
        let values = metrics.counters.flatMap { $0.dimensions.map(\.1) } + metrics.timers.flatMap { $0.dimensions.map(\.1) }
        #expect(!values.contains { $0.contains("/") || $0.contains("#") })
    }

    @Test("a call's operation name is an operation label on its request metrics; a call without one has none")
    func operationLabel() async throws {
        let metrics = TestMetrics()
        let transport = ScriptedTransport(fallback: .status(200))
        let client = APIClient(configuration: configuration(transport))
        let exporter = CourierMetrics(client: client, factory: metrics)
        let exported = Task { await exporter.run(pollingEvery: nil) }
        _ = try await client.data(for: Endpoint<EmptyResponse>(path: "users/1", version: .v1, options: RequestOptions(operationName: "getUser")))
        _ = try await client.data(for: Endpoint<EmptyResponse>(path: "users/2", version: .v1, options: RequestOptions(operationName: "getUser")))
        _ = try await client.data(for: Endpoint<EmptyResponse>(path: "users/3", version: .v1))
        await client.shutdown()
        await exported.value
        let get = [("method", "GET"), ("host", "api.example.com")]
        #expect(metrics.counterTotal(label: "courier_requests_total", dimensions: get + [("operation", "getUser"), ("status_class", "2xx")]) == 2)
        let unnamed = metrics.counters(label: "courier_requests_total").filter { !$0.dimensions.contains { $0.0 == "operation" } }
        #expect(unnamed.map(\.totalValue) == [1])
    }

    @Test("hosts past the limit share one label; unknown methods are _OTHER")
    func boundedLabels() async throws {
        let metrics = TestMetrics()
        let transport = ScriptedTransport(fallback: .status(200))
        let client = APIClient(configuration: configuration(transport))
        let exporter = CourierMetrics(client: client, factory: metrics, maxHosts: 1)
        let exported = Task { await exporter.run(pollingEvery: nil) }
        _ = try await client.data(for: HTTPRequest(method: .get, url: URL(string: "https://one.example.com/a/1")!))
        _ = try await client.data(for: HTTPRequest(method: .get, url: URL(string: "https://two.example.com/a/2")!))
        _ = try await client.data(for: HTTPRequest(method: "PURGE", url: URL(string: "https://three.example.com/a/3")!))
        await client.shutdown()
        await exported.value
        #expect(metrics.counterTotal(label: "courier_requests_total", dimensions: [("method", "GET"), ("host", "one.example.com"), ("status_class", "2xx")]) == 1)
        #expect(metrics.counterTotal(label: "courier_requests_total", dimensions: [("method", "GET"), ("host", "_other"), ("status_class", "2xx")]) == 1)
        #expect(metrics.counterTotal(label: "courier_requests_total", dimensions: [("method", "_OTHER"), ("host", "_other"), ("status_class", "2xx")]) == 1)
        #expect(Set(metrics.counters(label: "courier_requests_total").compactMap { $0.dimensions.first { $0.0 == "host" }?.1 }) == ["one.example.com", "_other"])
    }

    @Test("cache hits, misses and coalesced calls are exported as the counters' increase")
    func cache() async throws {
        let metrics = TestMetrics()
        let transport = ScriptedTransport()
        transport.script("/v1/menu", [.json(#"{"id":1,"name":"menu"}"#)])
        transport.script("/v1/slow", [.delayed(.milliseconds(100), .json(#"{"id":2,"name":"slow"}"#))])
        let client = APIClient(configuration: configuration(transport) { $0.caching = .init() })
        let exporter = CourierMetrics(client: client, factory: metrics)
        let exported = Task { await exporter.run(pollingEvery: nil) }

        _ = try await client.send(Endpoint<User>(path: "menu", version: .v1))       // miss
        _ = try await client.send(Endpoint<User>(path: "menu", version: .v1))       // fresh hit
        await exporter.pollStats()
        #expect(metrics.counterTotal(label: "courier_cache_hits_total", dimensions: [("freshness", "fresh")]) == 1)
        #expect(metrics.counterTotal(label: "courier_cache_misses_total", dimensions: []) == 1)

        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 { group.addTask { _ = try? await client.send(Endpoint<User>(path: "slow", version: .v1)) } }
        }
        _ = try await client.send(Endpoint<User>(path: "menu", version: .v1))       // fresh hit
        await exporter.pollStats()
        let stats = try await client.cache.stats()
        #expect(metrics.counterTotal(label: "courier_cache_hits_total", dimensions: [("freshness", "fresh")]) == Int64(stats.hits))
        #expect(metrics.counterTotal(label: "courier_cache_misses_total", dimensions: []) == Int64(stats.misses))
        #expect(metrics.counterTotal(label: "courier_cache_coalesced_total", dimensions: []) == Int64(stats.coalesced))
        #expect(stats.hits == 2 && stats.misses == 5 && stats.coalesced <= 3)   // misses count the coalesced ones too
        #expect(try metrics.expectGauge("courier_cache_entries").lastValue == 2)
        await client.shutdown()
        await exported.value
    }

    @Test("the offline queue's depth, deliveries and dead letters; session refreshes")
    func offlineAndSession() async throws {
        let metrics = TestMetrics()
        let transport = ScriptedTransport()
        transport.script("/v1/notes", method: .post, [.status(201)])
        transport.script("/v1/refused", method: .post, [.status(400)])
        transport.script("/auth/refresh", method: .post, [.json(#"{"accessToken":"new","expiresIn":3600}"#)])
        let client = APIClient(configuration: configuration(transport) {
            $0.session = .init()
            $0.offline = .init(storageFile: temporaryFile("queue.sqlite"))
        })
        let exporter = CourierMetrics(client: client, factory: metrics)
        let exported = Task { await exporter.run(pollingEvery: nil) }

        try await client.session.signIn(Tokens(accessToken: "old", refreshToken: "r", expiresIn: 3600))
        try await client.session.refresh()
        try await client.offline.enqueue(Endpoint<EmptyResponse>(path: "notes", method: .post, body: ["text": "a"], version: .v1))
        try await client.offline.enqueue(Endpoint<EmptyResponse>(path: "refused", method: .post, body: ["text": "b"], version: .v1))
        _ = try await client.offline.sync()
        let depth = try await client.offline.pendingCount
        await client.shutdown()
        await exported.value

        #expect(metrics.counterTotal(label: "courier_session_refreshes_total", dimensions: [("result", "success")]) == 1)
        #expect(metrics.counterTotal(label: "courier_offline_items_total", dimensions: [("outcome", "enqueued")]) == 2)
        #expect(metrics.counterTotal(label: "courier_offline_items_total", dimensions: [("outcome", "delivered")]) == 1)
        #expect(metrics.counterTotal(label: "courier_offline_items_total", dimensions: [("outcome", "dead_lettered")]) == 1)
        #expect(depth == 0)
        #expect(try metrics.expectGauge("courier_offline_queue_depth").lastValue == 0)
        #expect(try metrics.expectGauge("courier_offline_queue_depth").values.contains(1))
    }

    @Test("a circuit breaker's changes are counted by the state entered; its refusals are circuit_open errors")
    func circuitBreaker() async throws {
        let metrics = TestMetrics()
        let transport = ScriptedTransport()
        transport.script("/v1/down", [.status(503)])
        let client = APIClient(configuration: configuration(transport) {
            $0.retryPolicy = .never
            $0.circuitBreaker = CircuitBreakerPolicy(window: .calls(2), minimumCalls: 2, openJitter: 0)
        })
        let exporter = CourierMetrics(client: client, factory: metrics)
        let exported = Task { await exporter.run(pollingEvery: nil) }
        for _ in 0..<3 { _ = try? await client.send(Endpoint<EmptyResponse>(path: "down", version: .v1)) }
        await client.shutdown()
        await exported.value

        #expect(transport.requests.count == 2)
        #expect(try metrics.expectCounter("courier_circuit_breaker_changes_total", [("to", "open")]).totalValue == 1)
        let get = [("method", "GET"), ("host", "api.example.com")]
        #expect(try metrics.expectCounter("courier_request_errors_total", get + [("error", "circuit_open")]).totalValue == 1)
    }

    @Test("a hedge is counted by method and host")
    func hedges() async throws {
        let metrics = TestMetrics()
        let clock = ManualClock()
        let transport = ScriptedTransport(clock: clock)
        transport.script("/v1/slow", [.delayed(.seconds(5), .status(200)), .status(200)])
        let client = APIClient(configuration: configuration(transport) {
            $0.retryPolicy = .never
            $0.clock = clock
            $0.hedging = HedgingPolicy(delay: .fixed(.seconds(1)), budget: .unlimited)
        })
        let exporter = CourierMetrics(client: client, factory: metrics)
        let exported = Task { await exporter.run(pollingEvery: nil) }
        let call = Task { try await client.send(Endpoint<EmptyResponse>(path: "slow", version: .v1)) }
        await clock.waitForSleepers(2)   // the attempt and the hedge's timer
        clock.advance(by: .seconds(1))
        _ = try await call.value
        await client.shutdown()
        await exported.value

        #expect(transport.requests.count == 2)
        let get = [("method", "GET"), ("host", "api.example.com")]
        #expect(try metrics.expectCounter("courier_request_hedges_total", get).totalValue == 1)
    }

    @Test("identical GraphQL queries sharing one request (no cache) are counted by host")
    func sharedQueries() async throws {
        let metrics = TestMetrics()
        let clock = ManualClock()
        let transport = ScriptedTransport(clock: clock)
        transport.script("/graphql", [.delayed(.seconds(1), .json(#"{"data":{"answer":42}}"#))])
        let client = APIClient(configuration: configuration(transport) { $0.clock = clock })
        var events = client.events().makeAsyncIterator()
        let exporter = CourierMetrics(client: client, factory: metrics)
        let exported = Task { await exporter.run(pollingEvery: nil) }
        let first = Task { try await client.graphQL.fetch(AnswerQuery()).answer }
        await clock.waitForSleepers(1)   // the request, held by the transport
        let second = Task { try await client.graphQL.fetch(AnswerQuery()).answer }
        while let event = await events.next() {
            if case .shared = event { break }
        }
        clock.advance(by: .seconds(1))
        #expect(try await [first.value, second.value] == [42, 42])
        await client.shutdown()
        await exported.value

        #expect(transport.requests.count == 1)
        #expect(try metrics.expectCounter("courier_requests_shared_total", [("host", "api.example.com")]).totalValue == 1)
    }

    @Test("shed calls are counted by priority; an adaptive limit is a gauge by host")
    func shedAndAdaptiveLimit() async throws {
        let metrics = TestMetrics()
        let clock = ManualClock()
        let transport = ScriptedTransport(clock: clock)
        transport.script("/v1/busy", [.delayed(.milliseconds(10), .status(503))])
        let client = APIClient(configuration: configuration(transport) {
            $0.retryPolicy = .never
            $0.clock = clock
            $0.limits.maxQueuedRequests = 0
            $0.limits.adaptive = ConcurrencyLimitPolicy(initialLimit: 2, minLimit: 1, maxLimit: 2)
        })
        let exporter = CourierMetrics(client: client, factory: metrics)
        let exported = Task { await exporter.run(pollingEvery: nil) }
        // Two calls fill the limit of 2; with no room to wait, a third is shed.
        let busy = (0..<2).map { _ in Task { try await client.send(Endpoint<EmptyResponse>(path: "busy", version: .v1)) } }
        await clock.waitForSleepers(2)
        let shed = try? await client.send(Endpoint<EmptyResponse>(
            path: "busy", version: .v1, options: RequestOptions(priority: .background)))
        #expect(shed == nil)
        clock.advance(by: .milliseconds(10))
        for call in busy { _ = try? await call.value }
        // The second sample is a drop: the limit falls to 1 (samples are read with the next message).
        _ = try await client.pipelineStats()
        await client.shutdown()
        await exported.value

        #expect(try metrics.expectCounter("courier_requests_shed_total", [("priority", "background")]).totalValue == 1)
        #expect(try metrics.expectGauge("courier_concurrency_limit", [("host", "api.example.com")]).lastValue == 1)
    }

    @Test("status classes and error kinds are bounded values")
    func labelValues() {
        #expect(CourierMetrics.statusClass(204) == "2xx")
        #expect(CourierMetrics.statusClass(503) == "5xx")
        #expect(CourierMetrics.statusClass(101) == "error")
        #expect(CourierMetrics.errorKind(.timeout(.attempt, underlying: nil)) == "timeout")
        #expect(CourierMetrics.errorKind(.serverError(HTTPResponse(status: 502))) == "http_status")
    }
}
