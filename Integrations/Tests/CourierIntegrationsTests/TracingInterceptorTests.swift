import Courier
import CourierTesting
import CourierTracing
import Foundation
import InMemoryTracing
import Synchronization
import Testing
import Tracing

@Suite struct TracingInterceptorTests {
    @Test("the caller's context is the attempt span's parent, and the span's traceparent reaches the transport")
    func callerContext() async throws {
        let tracer = W3CTracer()
        let transport = ScriptedTransport()
        transport.script("/v1/users/1", [.json(#"{"id":1,"name":"Ada"}"#)])
        let client = APIClient(configuration: traced(transport, tracer: tracer))

        let parent = tracer.startSpan("handler", context: .topLevel, ofKind: .server)
        let user = try await ServiceContext.withValue(parent.context) {
            try await client.send(Endpoint<User>(path: "users/1", version: .v1))
        }
        parent.end()
        await client.shutdown()
        #expect(user.value.name == "Ada")

        let attempt = try #require(tracer.memory.finishedSpans.first { $0.kind == .client })
        #expect(attempt.parentSpanID == parent.spanID && attempt.traceID == parent.traceID)
        #expect(attempt.operationName == "GET")
        #expect(attempt.attributes.get("http.response.status_code") == .int64(200))
        #expect(attempt.attributes.get("http.request.resend_count") == nil)
        let header = try #require(transport.requests.first?.headers["traceparent"])
        #expect(header == "00-\(parent.traceID)-\(attempt.spanID)-01")
        #expect(header.utf8.count == 55)
    }

    @Test("a retried request has one span per attempt, with http.request.resend_count, each in its own request's headers")
    func retries() async throws {
        let tracer = InMemoryTracer()
        let transport = ScriptedTransport()
        transport.script("/v1/users/2", [.status(503), .json(#"{"id":2,"name":"Bo"}"#)])
        let client = APIClient(configuration: traced(transport, tracer: tracer))

        let parent = tracer.startSpan("handler", context: .topLevel, ofKind: .server)
        let user = try await ServiceContext.withValue(parent.context) {
            try await client.send(Endpoint<User>(path: "users/2", query: [URLQueryItem(name: "token", value: "s3cret")], version: .v1))
        }
        parent.end()
        await client.shutdown()
        #expect(user.value.name == "Bo")

        // The attempts are siblings under the caller's span: there is no span for the call.
        let attempts = tracer.finishedSpans.filter { $0.kind == .client }
        #expect(tracer.finishedSpans.count == 3)
        #expect(attempts.count == 2)
        #expect(attempts.allSatisfy { $0.parentSpanID == parent.spanID && $0.operationName == "GET" })
        #expect(attempts.map { $0.attributes.get("http.response.status_code") } == [.int64(503), .int64(200)])
        #expect(attempts.map { $0.attributes.get("http.request.resend_count") } == [nil, .int64(1)])
        #expect(attempts.map { $0.attributes.get("courier.attempt") } == [.int64(1), .int64(2)])
        #expect(attempts[0].status?.code == .error && attempts[0].attributes.get("error.type") == .string("503"))
        #expect(attempts[1].status == nil && attempts[1].attributes.get("error.type") == nil)
        for span in attempts {
            #expect(span.attributes.get("http.request.method") == .string("GET"))
            #expect(span.attributes.get("server.address") == .string("api.example.com"))
            #expect(span.attributes.get("server.port") == .int64(443))
            #expect(span.attributes.get("url.scheme") == .string("https"))
            #expect(span.attributes.get("url.full") == .string("https://api.example.com/v1/users/2?token=%3Credacted%3E"))
        }

        // Each request sent carries its own attempt's context, injected by the tracer.
        let sent = transport.requests(to: "/v1/users/2")
        #expect(sent.map { $0.headers[InMemoryTracer.spanIDKey] } == attempts.map(\.spanID))
        #expect(sent.allSatisfy { $0.headers[InMemoryTracer.traceIDKey] == parent.traceID })
    }

    @Test("the caller's task-locals reach the transport, where the attempt's span is the current context")
    func taskLocalsAtTheTransport() async throws {
        let tracer = InMemoryTracer()
        let transport = ObservingTransport(ScriptedTransport())
        transport.inner.script("/v1/users/3", [.status(503), .json(#"{"id":3,"name":"Cy"}"#)])
        var configuration = APIClient.Configuration(baseURL: base, transport: transport, retryPolicy: immediateRetries)
        configuration.interceptors = [TracingInterceptor(tracer: tracer)]
        let client = APIClient(configuration: configuration)

        _ = try await Tenant.$current.withValue("acme") {
            try await client.send(Endpoint<User>(path: "users/3", version: .v1))
        }
        await client.shutdown()

        let attempts = tracer.finishedSpans.filter { $0.kind == .client }
        #expect(transport.seen.map { $0.tenant } == ["acme", "acme"])
        #expect(transport.seen.map { $0.spanID } == attempts.map(\.spanID))
    }

    @Test("errors are recorded on the attempt's span; an error status sets error.type and the span's status")
    func errors() async throws {
        let tracer = InMemoryTracer()
        let transport = ScriptedTransport()
        transport.script("/v1/users/4", [.status(404)])
        transport.script("/v1/down", [.fail(.noConnection(underlying: nil))])
        let client = APIClient(configuration: traced(transport, tracer: tracer))

        await #expect(throws: NetworkError.self) { try await client.send(Endpoint<User>(path: "users/4", version: .v1)) }
        await #expect(throws: NetworkError.self) {
            try await client.data(for: Endpoint<User>(path: "down", version: .v1, options: RequestOptions(retryPolicy: .never)))
        }
        await client.shutdown()

        let spans = tracer.finishedSpans
        #expect(spans.count == 2 && spans.allSatisfy { $0.kind == .client && $0.status?.code == .error })
        let notFound = try #require(spans.first { $0.attributes.get("error.type") == .string("404") })
        #expect(notFound.attributes.get("http.response.status_code") == .int64(404))
        let down = try #require(spans.first { $0.attributes.get("error.type") == .string("no_connection") })
        #expect(down.errors.count == 1 && down.errors.first?.error is NetworkError)
        #expect(down.attributes.get("http.response.status_code") == nil)
    }

    @Test("a fresh cache hit sends nothing and has no span")
    func cacheHit() async throws {
        let tracer = InMemoryTracer()
        let transport = ScriptedTransport()
        transport.script("/v1/menu", [.json(#"{"id":1,"name":"menu"}"#)])
        let client = APIClient(configuration: traced(transport, tracer: tracer) { $0.caching = .init() })
        let parent = tracer.startSpan("handler", context: .topLevel, ofKind: .server)
        try await ServiceContext.withValue(parent.context) {
            _ = try await client.send(Endpoint<User>(path: "menu", version: .v1))
            _ = try await client.send(Endpoint<User>(path: "menu", version: .v1))
        }
        parent.end()
        await client.shutdown()
        let attempts = tracer.finishedSpans.filter { $0.kind == .client }
        #expect(attempts.count == 1 && transport.requests.count == 1)
        // The miss's fetch runs in a task its caller prepared: under the caller's span.
        #expect(attempts.first?.parentSpanID == parent.spanID)
    }

    @Test("with no tracer given, each attempt uses the tracer active in the caller's task")
    func activeTracer() async throws {
        let tracer = InMemoryTracer()
        let transport = ScriptedTransport()
        transport.script("/v1/users/5", [.json(#"{"id":5,"name":"Di"}"#)])
        var configuration = configuration(transport)
        configuration.interceptors = [TracingInterceptor()]
        let client = APIClient(configuration: configuration)

        _ = try await withTracer(tracer) { () async throws(NetworkError) in
            try await client.send(Endpoint<User>(path: "users/5", version: .v1))
        }
        await client.shutdown()

        // No caller context: the attempt starts a trace of its own, and still sends it.
        let attempt = try #require(tracer.finishedSpans.first)
        #expect(tracer.finishedSpans.count == 1 && attempt.parentSpanID == nil)
        #expect(transport.requests.first?.headers[InMemoryTracer.spanIDKey] == attempt.spanID)
    }
}

/// The fixtures' configuration with a tracing interceptor of `tracer`, redacting as its logs do.
func traced(
    _ transport: ScriptedTransport, tracer: any Tracer, _ configure: (inout APIClient.Configuration) -> Void = { _ in }
) -> APIClient.Configuration {
    var configuration = configuration(transport, configure)
    configuration.interceptors = [TracingInterceptor(tracer: tracer, redaction: configuration.logging.redaction)]
    return configuration
}

/// A task-local of the test's own, set by the caller.
enum Tenant {
    @TaskLocal static var current: String?
}

/// Records, for each request, the caller's ``Tenant`` and the span of the current context as
/// the transport sees them, then answers as `inner` does.
final class ObservingTransport: HTTPTransport {
    let inner: ScriptedTransport
    private let observed = Mutex<[(tenant: String?, spanID: String?)]>([])

    init(_ inner: ScriptedTransport) { self.inner = inner }

    var seen: [(tenant: String?, spanID: String?)] { observed.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws(NetworkError) -> HTTPResponse {
        let seen = (tenant: Tenant.current, spanID: ServiceContext.current?.inMemorySpanContext?.spanID)
        observed.withLock { $0.append(seen) }
        return try await inner.send(request)
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
