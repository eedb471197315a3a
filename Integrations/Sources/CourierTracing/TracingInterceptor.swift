public import Courier

/// The per-attempt half of Courier's tracing: for a call made through ``TracingClient``, it
/// starts a client span per attempt (a child of the call's span), injects that span's context
/// into the request's headers through the tracer (W3C `traceparent` with an OpenTelemetry
/// tracer), and ends it with the attempt's status. Calls made on the client directly pass
/// untouched.
///
/// Install it with ``Courier/APIClient/Configuration/addTracing()`` (first among the request
/// interceptors, last among the response interceptors), or let
/// ``TracingClient/init(configuration:tracer:)`` do it.
public struct TracingInterceptor: RequestInterceptor, ResponseInterceptor {
    /// An interceptor.
    public init() {}

    /// Starts the attempt's span and injects its context.
    public func intercept(_ request: HTTPRequest, context: RequestContext) -> RequestInterception {
        guard let call = context.tags[CallTrace.self] else { return .proceed(request) }
        var request = request
        call.startAttempt(&request, context)
        return .proceed(request)
    }

    /// Ends the attempt's span with the response's status.
    public func intercept(_ response: HTTPResponse, to request: HTTPRequest, context: RequestContext) -> HTTPResponse {
        context.tags[CallTrace.self]?.endAttempt(response)
        return response
    }
}

extension APIClient.Configuration {
    /// Adds ``TracingInterceptor``, first among the request interceptors (its attempt span covers
    /// the others) and last among the response interceptors (it sees the response they leave),
    /// unless it is there already.
    public mutating func addTracing() {
        guard !hasTracing else { return }
        requestInterceptors.insert(TracingInterceptor(), at: 0)
        responseInterceptors.append(TracingInterceptor())
    }

    /// Whether ``TracingInterceptor`` is among the request interceptors.
    public var hasTracing: Bool { requestInterceptors.contains { $0 is TracingInterceptor } }
}
