/// What actually moves bytes: one request in, one response out.
///
/// Courier's pipeline depends only on this protocol, never on one HTTP stack. A transport:
/// - calls ``HTTPRequest/validate()`` before sending anything;
/// - honours ``HTTPRequest/timeout`` (or its own default) as a deadline for the whole exchange;
/// - returns every HTTP status as a response (mapping statuses to errors is the pipeline's job);
/// - throws only ``NetworkError``: `noConnection`, `timeout`, `cancelled`, `responseTooLarge`,
///   `securityError`, `malformedResponse`, `invalidURL`/`invalidRequest`, `encodingError` (a
///   body stream that failed), or `unknown` with the cause;
/// - sends ``HTTPRequest/bodyStream`` when it is set instead of a body;
/// - stops the exchange and throws ``NetworkError/cancelled`` when the calling task is cancelled.
///
/// Shipped: ``CurlTransport`` (libcurl; the default on Linux), ``URLSessionTransport`` (the
/// default on Apple platforms), and in `CourierTesting` an in-memory and a scripted transport.
public protocol HTTPTransport: Sendable {
    /// Performs one HTTP exchange.
    func send(_ request: HTTPRequest) async throws(NetworkError) -> HTTPResponse
}
