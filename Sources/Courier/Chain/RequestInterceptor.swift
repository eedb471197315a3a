/// Changes, answers or refuses a request before it reaches the transport.
///
/// Request interceptors run in the configured order before every attempt (so a retried request
/// picks up a refreshed token). Each returns the request to send on, or a response that
/// short-circuits the transport (and the interceptors after it), or throws to fail the request:
/// a ``NetworkError`` as it is, a `CancellationError` as ``NetworkError/cancelled``, any other
/// error as ``NetworkError/unknown(underlying:)`` with it as the cause.
///
/// ```swift
/// struct TenantHeader: RequestInterceptor {
///     let tenant: @Sendable () async throws -> String
///     func intercept(_ request: HTTPRequest, context: RequestContext) async throws -> RequestInterception {
///         var request = request
///         request.headers["X-Tenant"] = try await tenant()
///         return .proceed(request)
///     }
/// }
/// ```
public protocol RequestInterceptor: Sendable {
    /// Inspects or changes `request` before it is sent.
    func intercept(_ request: HTTPRequest, context: RequestContext) async throws -> RequestInterception
}
