/// One step of the request chain, OkHttp's shape: it may change the request and pass it on
/// with `chain.proceed(_:)`, change the response that comes back, or answer the request itself
/// without calling `proceed`.
///
/// Your interceptors run once per attempt (a retried request passes them again, so a refreshed
/// token or a new header is picked up), after the retry step and before the redirects, the
/// security guard, auth, logging and the transport. A step calls `proceed` at most once per
/// attempt; a second call fails the request (``NetworkError/invalidRequest(_:)``). A thrown
/// ``NetworkError`` fails the request as it is, a `CancellationError` as
/// ``NetworkError/cancelled``, any other error as ``NetworkError/unknown(underlying:)``.
///
/// Interceptors run in the caller's task: its task-local values are visible here.
///
/// ```swift
/// struct TenantHeader: Interceptor {
///     func intercept(_ request: HTTPRequest, chain: InterceptorChain) async throws -> HTTPResponse {
///         var request = request
///         request.headers["X-Tenant"] = "acme"
///         return try await chain.proceed(request)
///     }
/// }
/// ```
public protocol Interceptor: Sendable {
    /// Handles `request`: usually changes it and returns `try await chain.proceed(request)`.
    func intercept(_ request: HTTPRequest, chain: InterceptorChain) async throws -> HTTPResponse
}
