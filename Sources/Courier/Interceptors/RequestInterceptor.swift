/// Changes, answers or refuses a request before it reaches the transport.
///
/// Request interceptors run in the configured order before every attempt (so a retried request
/// picks up a refreshed token). Each returns the request to send on, or a response that
/// short-circuits the transport (and the interceptors after it), or throws to fail the request.
public protocol RequestInterceptor: Sendable {
    /// Inspects or changes `request` before it is sent.
    func intercept(_ request: HTTPRequest, context: RequestContext) async throws(NetworkError) -> RequestInterception
}
