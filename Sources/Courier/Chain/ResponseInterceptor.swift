/// Inspects or changes a response before the retry decision and the caller see it.
/// Response interceptors run in the configured order after every attempt that got a response.
public protocol ResponseInterceptor: Sendable {
    /// Inspects or changes `response` to `request`; throwing fails the request (an error that is
    /// not a ``NetworkError`` becomes one as for ``RequestInterceptor``).
    func intercept(_ response: HTTPResponse, to request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse
}
