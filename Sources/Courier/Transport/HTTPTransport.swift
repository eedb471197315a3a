import Foundation

/// What actually moves bytes: one request in, one response out.
///
/// Courier's pipeline depends only on this protocol, never on one HTTP stack. A transport:
/// - calls ``HTTPRequest/validate()`` before sending anything;
/// - honours ``HTTPRequest/timeout`` (or its own default) as a deadline for the whole exchange;
/// - returns every HTTP status as a response (mapping statuses to errors is the pipeline's job);
/// - throws only ``NetworkError``: `cannotConnect` (with the URL's host and port),
///   `connectionLost`, `noConnection` (only when the OS says the device is offline), `timeout`,
///   `cancelled`, `responseTooLarge`, `securityError`, `malformedResponse`,
///   `invalidURL`/`invalidRequest`, `encodingError` (a body stream that failed), or `unknown` with
///   the cause;
/// - sends ``HTTPRequest/bodyStream`` when it is set instead of a body;
/// - stops the exchange and throws ``NetworkError/cancelled`` when the calling task is cancelled.
///
/// Shipped: ``CurlTransport`` (libcurl; the default on Linux), ``URLSessionTransport`` (the
/// default on Apple platforms), and in `CourierTesting` an in-memory and a scripted transport.
public protocol HTTPTransport: Sendable {
    /// Performs one HTTP exchange.
    func send(_ request: HTTPRequest) async throws(NetworkError) -> HTTPResponse

    /// Performs one HTTP exchange whose body is read as it arrives: returns when the final
    /// response's head has arrived (its ``HTTPResponse/body`` empty), with the body to read.
    ///
    /// ``HTTPRequest/timeout`` bounds the time to the head; after it, the exchange ends with
    /// ``NetworkError/timeout(_:underlying:)`` when no byte arrives for `stallTimeout` while the
    /// consumer waits. ``HTTPRequest/maximumResponseSize`` limits the whole body. The default
    /// implementation, for transports that cannot stream, receives the whole response with
    /// ``send(_:)`` and hands its body over as one chunk.
    func stream(_ request: HTTPRequest, stallTimeout: Duration) async throws(NetworkError) -> (HTTPResponse, ResponseBytes)

    /// Performs a WebSocket opening handshake (RFC 6455 §4): `request` is the HTTP/1.1 Upgrade
    /// request, its `Sec-WebSocket-*` fields set. Returns the server's answer: on a valid 101
    /// the WebSocket is open on it (framed as `options` say); any other status comes back as
    /// a response, its body read, so that the chain's steps (the 401 renewal) decide. The
    /// default implementation, for transports without WebSockets, throws
    /// ``NetworkError/invalidRequest(_:)``.
    func upgrade(_ request: HTTPRequest, webSocket options: WebSocketOptions) async throws(NetworkError) -> HTTPResponse
}

extension HTTPTransport {
    /// Throws ``NetworkError/invalidRequest(_:)``: this transport opens no WebSockets.
    public func upgrade(_ request: HTTPRequest, webSocket options: WebSocketOptions) async throws(NetworkError) -> HTTPResponse {
        throw .invalidRequest("\(type(of: self)) cannot open WebSockets")
    }

    /// Sends the request with ``send(_:)`` and hands the body over as one chunk.
    public func stream(_ request: HTTPRequest, stallTimeout: Duration) async throws(NetworkError) -> (HTTPResponse, ResponseBytes) {
        var response = try await send(request)
        let body = response.takeBody()
        return (response, body)
    }
}
