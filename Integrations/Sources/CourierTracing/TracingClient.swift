public import Courier
import Foundation
public import Tracing

/// Traces calls: one span per call (kind `internal`, a child of the caller's
/// `ServiceContext.current`) with a child span per attempt (kind `client`, one per request
/// sent: retries and the 401 renewal's replay each get their own, with
/// `http.request.resend_count`), carrying OpenTelemetry's HTTP attributes
/// (`http.request.method`, `url.full` redacted as the client's logs are, `server.address`,
/// `server.port`, `http.response.status_code`, `error.type`). Each attempt's context goes out
/// in its headers through the tracer (`traceparent` with an OpenTelemetry tracer); errors are
/// recorded on the spans.
///
/// Why a wrapper: a call's attempts run on a pipeline worker, where the caller's task-local
/// `ServiceContext` is not visible, so the call's span is made here, in the caller's task, and
/// handed to the attempts in the call's ``Courier/RequestOptions/tags``, where the client's
/// ``TracingInterceptor`` picks it up. Identical GETs that share one fetch each get a call
/// span; the fetch's attempts are children of the first caller's. A fresh cache hit has no
/// attempt (`courier.cache.hit`). A redirect is followed inside its attempt's span.
///
/// ```swift
/// var configuration = APIClient.Configuration(baseURL: base)
/// let traced = TracingClient(configuration: configuration)    // adds TracingInterceptor
/// let user = try await traced.send(Endpoint<User>(path: "users/42"))
/// ```
public struct TracingClient: Sendable {
    /// The client the calls go through.
    public let client: APIClient
    /// Where spans go, and whose instrument injects their context.
    public let tracer: any Tracer

    /// Traces calls through `client`, whose configuration must have the ``TracingInterceptor``
    /// (``Courier/APIClient/Configuration/addTracing()``). `tracer` defaults to
    /// `InstrumentationSystem.tracer`, read now.
    public init(_ client: APIClient, tracer: (any Tracer)? = nil) {
        precondition(
            client.configuration.hasTracing,
            "TracingClient: the client's configuration has no TracingInterceptor (call configuration.addTracing())")
        self.client = client
        self.tracer = tracer ?? InstrumentationSystem.tracer
    }

    /// A client made from `configuration` with the ``TracingInterceptor`` added, traced.
    public init(configuration: APIClient.Configuration, tracer: (any Tracer)? = nil) {
        var configuration = configuration
        configuration.addTracing()
        self.init(APIClient(configuration: configuration), tracer: tracer)
    }

    /// ``Courier/APIClient/send(_:)``, traced; the span is named `operationName`, else the
    /// method (`GET`).
    public func send<Value>(_ endpoint: Endpoint<Value>, operationName: String? = nil) async throws(NetworkError) -> Response<Value> {
        var endpoint = endpoint
        let call = start(operationName, method: endpoint.method, url: try? client.url(for: endpoint), options: &endpoint.options)
        do {
            let response = try await client.send(endpoint)
            call.end(.success(response.response))
            return response
        } catch {
            call.end(.failure(error))
            throw error
        }
    }

    /// ``Courier/APIClient/data(for:)-(Endpoint<_>)``, traced.
    public func data<Value>(for endpoint: Endpoint<Value>, operationName: String? = nil) async throws(NetworkError) -> HTTPResponse {
        var endpoint = endpoint
        let call = start(operationName, method: endpoint.method, url: try? client.url(for: endpoint), options: &endpoint.options)
        return try await finish(call) { () throws(NetworkError) in try await client.data(for: endpoint) }
    }

    /// ``Courier/APIClient/data(for:options:)``, traced.
    public func data(
        for request: HTTPRequest, options: RequestOptions = RequestOptions(), operationName: String? = nil
    ) async throws(NetworkError) -> HTTPResponse {
        var options = options
        let call = start(operationName, method: request.method, url: request.url, options: &options)
        return try await finish(call) { () throws(NetworkError) in try await client.data(for: request, options: options) }
    }

    /// Starts the call's span under the caller's context and tags `options` with it.
    private func start(_ name: String?, method: HTTPMethod, url: URL?, options: inout RequestOptions) -> CallTrace {
        let span = tracer.startSpan(
            name ?? HTTPAttributes.spanName(method), context: ServiceContext.current ?? .topLevel, ofKind: .internal)
        let redaction = client.configuration.logging.redaction
        HTTPAttributes.describe(method: method, url: url, on: span, redaction: redaction)
        let call = CallTrace(tracer: tracer, span: span, redaction: redaction)
        options.tags[CallTrace.self] = call
        return call
    }

    private func finish(
        _ call: CallTrace, _ body: () async throws(NetworkError) -> HTTPResponse
    ) async throws(NetworkError) -> HTTPResponse {
        do {
            let response = try await body()
            call.end(.success(response))
            return response
        } catch {
            call.end(.failure(error))
            throw error
        }
    }
}
