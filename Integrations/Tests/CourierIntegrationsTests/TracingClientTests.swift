import Courier
import CourierTesting
import CourierTracing
import Foundation
import InMemoryTracing
import Testing
import Tracing

@Suite struct TracingClientTests {
    @Test("one span per call, a child span per attempt, each attempt's context in its headers")
    func callAndAttempts() async throws {
        let tracer = InMemoryTracer()
        let transport = ScriptedTransport()
        transport.script("/v1/users/2", [.status(503), .json(#"{"id":2,"name":"Bo"}"#)])
        let traced = TracingClient(configuration: configuration(transport), tracer: tracer)

        let parent = tracer.startSpan("handler", context: .topLevel, ofKind: .server)
        let user = try await ServiceContext.withValue(parent.context) {
            try await traced.send(Endpoint<User>(path: "users/2", query: [URLQueryItem(name: "token", value: "s3cret")], version: .v1))
        }
        parent.end()
        await traced.client.shutdown()
        #expect(user.value.name == "Bo")

        let spans = tracer.finishedSpans
        let call = try #require(spans.first { $0.operationName == "GET" && $0.kind == .internal })
        let attempts = spans.filter { $0.kind == .client }
        #expect(call.parentSpanID == parent.spanID && call.traceID == parent.traceID)
        #expect(attempts.count == 2)
        #expect(attempts.allSatisfy { $0.parentSpanID == call.spanID && $0.operationName == "GET" })
        #expect(attempts.map { $0.attributes.get("http.response.status_code") } == [.int64(503), .int64(200)])
        #expect(attempts.map { $0.attributes.get("http.request.resend_count") } == [nil, .int64(1)])
        #expect(attempts[0].status?.code == .error && attempts[0].attributes.get("error.type") == .string("503"))
        #expect(attempts[1].status == nil)
        for span in [call] + attempts {
            #expect(span.attributes.get("http.request.method") == .string("GET"))
            #expect(span.attributes.get("server.address") == .string("api.example.com"))
            #expect(span.attributes.get("server.port") == .int64(443))
            #expect(span.attributes.get("url.full") == .string("https://api.example.com/v1/users/2?token=%3Credacted%3E"))
        }
        #expect(call.attributes.get("http.response.status_code") == .int64(200))
        #expect(call.attributes.get("courier.attempts") == .int64(2))

        // Each request sent carries its own attempt's context, injected by the tracer.
        let sent = transport.requests(to: "/v1/users/2")
        #expect(sent.map { $0.headers[InMemoryTracer.spanIDKey] } == attempts.map(\.spanID))
        #expect(sent.allSatisfy { $0.headers[InMemoryTracer.traceIDKey] == parent.traceID })
    }

    @Test("errors are recorded on the call's span and on an attempt that got no response")
    func errors() async throws {
        let tracer = InMemoryTracer()
        let transport = ScriptedTransport()
        transport.script("/v1/users/3", [.status(404)])
        transport.script("/v1/down", [.fail(.noConnection(underlying: nil))])
        let traced = TracingClient(configuration: configuration(transport), tracer: tracer)

        await #expect(throws: NetworkError.self) { try await traced.send(Endpoint<User>(path: "users/3", version: .v1)) }
        await #expect(throws: NetworkError.self) {
            try await traced.data(for: Endpoint<User>(path: "down", version: .v1, options: RequestOptions(retryPolicy: .never)))
        }
        await traced.client.shutdown()

        let spans = tracer.finishedSpans
        let notFound = try #require(spans.first { $0.kind == .internal && $0.attributes.get("error.type") == .string("404") })
        #expect(notFound.status?.code == .error && notFound.errors.count == 1)
        #expect(notFound.attributes.get("http.response.status_code") == .int64(404))
        let down = spans.filter { $0.attributes.get("error.type") == .string("no_connection") }
        #expect(down.map(\.kind).sorted { "\($0)" < "\($1)" } == [.client, .internal])
        #expect(down.allSatisfy { $0.errors.count == 1 && $0.status?.code == .error })
    }

    @Test("a fresh cache hit has a call span and no attempt; coalesced calls share the first caller's attempts")
    func cacheHit() async throws {
        let tracer = InMemoryTracer()
        let transport = ScriptedTransport()
        transport.script("/v1/menu", [.json(#"{"id":1,"name":"menu"}"#)])
        let traced = TracingClient(configuration: configuration(transport) { $0.caching = .init() }, tracer: tracer)
        _ = try await traced.send(Endpoint<User>(path: "menu", version: .v1))
        _ = try await traced.send(Endpoint<User>(path: "menu", version: .v1))
        await traced.client.shutdown()
        let calls = tracer.finishedSpans.filter { $0.kind == .internal }
        #expect(calls.count == 2)
        #expect(tracer.finishedSpans.filter { $0.kind == .client }.count == 1)
        #expect(calls.last?.attributes.get("courier.cache.hit") == .bool(true))
    }

    @Test("with a W3C tracer the attempt's traceparent goes out")
    func traceparent() async throws {
        let tracer = W3CTracer()
        let transport = ScriptedTransport()
        transport.script("/v1/users/1", [.json(#"{"id":1,"name":"Ada"}"#)])
        let traced = TracingClient(configuration: configuration(transport), tracer: tracer)
        _ = try await traced.send(Endpoint<User>(path: "users/1", version: .v1))
        await traced.client.shutdown()
        let attempt = try #require(tracer.memory.finishedSpans.first { $0.kind == .client })
        let header = try #require(transport.requests.first?.headers["traceparent"])
        #expect(header == "00-\(attempt.traceID)-\(attempt.spanID)-01")
        #expect(header.utf8.count == 55)
    }

    @Test("calls made on the client directly are not traced")
    func untracedCalls() async throws {
        let tracer = InMemoryTracer()
        let transport = ScriptedTransport()
        transport.script("/v1/users/1", [.json(#"{"id":1,"name":"Ada"}"#)])
        let traced = TracingClient(configuration: configuration(transport), tracer: tracer)
        _ = try await traced.client.send(Endpoint<User>(path: "users/1", version: .v1))
        await traced.client.shutdown()
        #expect(tracer.finishedSpans.isEmpty)
        #expect(transport.requests.first?.headers[InMemoryTracer.spanIDKey] == nil)
        var configuration = configuration(transport)
        configuration.addTracing()
        configuration.addTracing()
        #expect(configuration.requestInterceptors.count == 1 && configuration.responseInterceptors.count == 1)
    }
}

/// The in-memory tracer with W3C ids (32 and 16 hex digits), injecting `traceparent` as an
/// OpenTelemetry tracer does.
struct W3CTracer: Tracer {
    let memory = InMemoryTracer(idGenerator: .init(
        nextTraceID: { String(repeating: "0", count: 16) + String(UInt64.random(in: 1...UInt64.max), radix: 16).leftPadded(16) },
        nextSpanID: { String(UInt64.random(in: 1...UInt64.max), radix: 16).leftPadded(16) }))

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> InMemorySpan {
        memory.startSpan(operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID, line: line)
    }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject.Carrier == Carrier {
        guard let span = context.inMemorySpanContext else { return }
        injector.inject("00-\(span.traceID)-\(span.spanID)-01", forKey: "traceparent", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract.Carrier == Carrier {}
}

extension String {
    func leftPadded(_ count: Int) -> String { String(repeating: "0", count: max(0, count - utf8.count)) + self }
}
