public import Courier
public import Tracing

/// Traces every request a client sends: one span of kind `client` per attempt (retries and the
/// 401 renewal's replay each get their own, with `http.request.resend_count`), a child of the
/// caller's `ServiceContext.current`, with OpenTelemetry's HTTP client attributes
/// (`http.request.method`, `url.full` redacted, `url.scheme`, `server.address`, `server.port`,
/// `http.response.status_code`, `error.type`). The span's context goes out in the request's
/// headers through the tracer (`traceparent` with an OpenTelemetry tracer), and is
/// `ServiceContext.current` for the steps after it; an error is recorded on the span.
///
/// ```swift
/// var configuration = APIClient.Configuration(baseURL: base)
/// configuration.interceptors = [TracingInterceptor(redaction: configuration.logging.redaction)]
/// let client = APIClient(configuration: configuration)
/// let user = try await client.send(Endpoint<User>(path: "users/42"))   // traced
/// ```
///
/// It needs no wrapper: a call runs in its caller's task, so the caller's task-local context is
/// visible here. There is no span for the call as a whole: the attempts are siblings under the
/// caller's span, which is the one that covers them (`withSpan("load profile") { … }` gives a
/// call its own). A redirect is followed inside its attempt's span; a streamed call's span ends
/// when the response's head arrives. A fresh cache hit sends nothing, so it has no span.
public struct TracingInterceptor: Interceptor {
    /// Where the spans go, and whose instrument injects their context; nil for
    /// `InstrumentationSystem.tracer`, read at each attempt.
    public let tracer: (any Tracer)?
    /// What `url.full` hides: pass the client's `logging.redaction` to hide what its logs do.
    public let redaction: Redaction

    /// An interceptor that traces with `tracer`, or, when nil, with the tracer active at each
    /// attempt (a caller's `withTracer` scope, else the one bootstrapped), so it may be made
    /// before the instrumentation system is bootstrapped.
    public init(tracer: (any Tracer)? = nil, redaction: Redaction = Redaction()) {
        self.tracer = tracer
        self.redaction = redaction
    }

    /// Runs the attempt inside its span, with the span's context in the headers.
    public func intercept(_ request: HTTPRequest, chain: InterceptorChain) async throws -> HTTPResponse {
        let tracer = self.tracer ?? InstrumentationSystem.tracer
        let attempt = chain.context
        let span = tracer.startSpan(
            HTTPAttributes.spanName(request.method), context: ServiceContext.current ?? .topLevel, ofKind: .client)
        defer { span.end() }
        HTTPAttributes.describe(request, on: span, redaction: redaction)
        if attempt.attempt > 1 { span.attributes["http.request.resend_count"] = attempt.attempt - 1 }
        span.attributes["courier.request.id"] = Int(truncatingIfNeeded: attempt.id.rawValue)
        span.attributes["courier.attempt"] = attempt.attempt
        var request = request
        tracer.inject(span.context, into: &request.headers, using: HTTPHeadersInjector())
        do {
            // The span is current below, so that what the later steps or the transport trace
            // (a token refresh this attempt waits for) nests under it.
            let response = try await ServiceContext.withValue(span.context) { try await chain.proceed(request) }
            HTTPAttributes.record(status: response.status, on: span)
            return response
        } catch {
            HTTPAttributes.record(error, on: span)
            throw error
        }
    }
}
