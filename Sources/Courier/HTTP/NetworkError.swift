import Foundation

/// Every way a Courier request can fail, with what a caller needs to decide what to do:
/// its ``category`` (transport, an HTTP status, client-side, a component…), ``isRetryable``,
/// ``statusCode``, a ``userMessage`` fit to show, a one-line ``description`` for logs, and for
/// errors that came from an HTTP response, that ``response`` (status, headers, and up to
/// ``keptBodyBytes`` of body) with the server's ``serverMessage`` and ``serverCode`` when its
/// JSON body has them, and the body decoded as the type you configured (``errorBody``,
/// ``decodedBody(as:decoder:)``). The underlying cause (a `URLError`, a `DecodingError`…)
/// stays attached for logs.
///
/// A failure to reach a server is not the device being offline: ``cannotConnect(host:port:reason:underlying:)``
/// names the host, the port and why (refused, name not found, unreachable, TLS handshake);
/// ``noConnection(underlying:)`` is kept for an operating system that says the device has no
/// network; ``connectionLost(host:port:underlying:)`` for a connection that broke before any
/// answer.
public enum NetworkError: Error, Sendable {
    /// Which time limit a ``timeout(_:underlying:)`` hit.
    public enum TimeoutLimit: Sendable, Equatable {
        /// One attempt's timeout (``APIClient/Configuration/Timeouts/attempt``, or the
        /// request's own).
        case attempt
        /// The whole request's deadline (``APIClient/Configuration/Timeouts/request``): no
        /// time was left for this attempt or for a retry.
        case request
    }

    /// The URL could not be built or is not a valid HTTP(S) URL. The string says why.
    case invalidURL(String)
    /// The request itself is malformed (e.g. a header name or value with CR/LF). Never sent.
    case invalidRequest(String)
    /// The server's response broke HTTP's rules (e.g. a redirect `Location` that is not a URL).
    case invalidResponse(String)
    /// The exchange broke off or its response's framing was broken: the connection closed or
    /// was reset before the response was whole, a truncated head or body, bad chunking, a
    /// garbled status line, conflicting `Content-Length`s, an oversized header block. The
    /// string says what; the cause (the transport's own error) is kept for logs. Retryable (an
    /// idempotent request may well succeed on a new connection), and it says nothing about
    /// connectivity: the server was reached.
    case malformedResponse(String, underlying: (any Error)?)
    /// The device has no network: the operating system says so (URLSession's
    /// `notConnectedToInternet`, `dataNotAllowed`, `internationalRoamingOff`). A server that
    /// cannot be reached while the device is online is ``cannotConnect(host:port:reason:underlying:)``.
    case noConnection(underlying: (any Error)?)
    /// No connection to `host`:`port` could be made, so nothing of the request was sent: the
    /// connection was refused, the name was not found, there was no route to the host, or the
    /// TLS handshake failed (a certificate the client rejects is ``securityError(_:)``). It says
    /// which server is down, not that the device is offline. Retryable, for any method (nothing
    /// was sent), when refused or unreachable; the port is the URL's, or its scheme's default.
    case cannotConnect(host: String, port: Int, reason: ConnectFailure, underlying: (any Error)?)
    /// The connection to `host`:`port` was made, then broke before any of the response arrived
    /// (reset, closed): the server may have received, and acted on, the request. Retryable for
    /// an idempotent request. (Once part of the response has arrived, the exchange broke off:
    /// ``malformedResponse(_:underlying:)``.)
    case connectionLost(host: String, port: Int, underlying: (any Error)?)
    /// A time limit passed: one attempt's timeout, or the whole request's deadline.
    case timeout(TimeoutLimit, underlying: (any Error)?)
    /// HTTP 401, with the response; or `nil` when the request needed credentials and there
    /// were none, so it was not sent.
    case unauthorized(HTTPResponse?)
    /// A token could not be read (a JWT that is not three base64url parts, or has no numeric
    /// `exp`). The string says what is wrong; it never quotes the token.
    case invalidToken(String)
    /// HTTP 403: the credentials are valid but not allowed to do this.
    case forbidden(HTTPResponse)
    /// HTTP 404.
    case notFound(HTTPResponse)
    /// HTTP 409; the body usually describes the conflicting state.
    case conflict(HTTPResponse)
    /// HTTP 304 to a decoded call: the caller's validator (`If-None-Match`,
    /// `If-Modified-Since`) still holds, and the response has no body to decode. The raw call
    /// (``APIClient/data(for:options:)``) returns the 304 as a response instead.
    case notModified(HTTPResponse)
    /// Any other final status that is not a success: 4xx, 5xx, or a 3xx that was not followed.
    case serverError(HTTPResponse)
    /// More redirects than the policy allows (``RedirectPolicy/maxHops``).
    case tooManyRedirects(limit: Int)
    /// The response body could not be decoded into the expected type.
    /// `bodyPrefix` holds the first bytes of the body, for logs.
    case decodingError(underlying: any Error, bodyPrefix: String)
    /// The request body could not be encoded.
    case encodingError(underlying: any Error)
    /// A security rule refused the request or response (plain HTTP, a downgrade redirect…).
    case securityError(String)
    /// The response body exceeded the configured maximum size, in bytes.
    case responseTooLarge(limit: Int)
    /// A request with the cache policy ``CachePolicy/cacheOnly`` found nothing stored.
    case notCached
    /// The offline queue already holds its maximum number of items; the write was not stored.
    case queueFull(limit: Int)
    /// Courier's durable storage (the offline queue's database) could not be written or read.
    /// The string says why; nothing was stored.
    case storageFailed(String)
    /// The caller's task was cancelled; the request was cancelled at the transport.
    case cancelled
    /// The pipeline is at capacity (in-flight and queued requests); try again later.
    case overloaded
    /// The circuit breaker of `origin` (`https://host:port`) is open: that origin failed too
    /// often lately (``CircuitBreakerPolicy``), so the attempt failed at once and nothing was
    /// sent. Probes go after `retryAfter` (zero: once the probes under way have ended). Not
    /// retried by a ``RetryPolicy``; the offline queue waits `retryAfter` without counting an
    /// attempt.
    case circuitOpen(origin: String, retryAfter: Duration)
    /// The component that must handle this is not there and will not come back: the client
    /// was created without it (the string is the group's name: `"session"`, `"cache"`,
    /// `"offline"` or `"connectivity"`; see ``APIClient``), or it stopped (shut down, or its
    /// supervisor gave up restarting it; the string is the component's name).
    case componentUnavailable(String)
    /// The component failed while handling this request and is being restarted; the request
    /// may or may not have had an effect.
    case componentRestarted(String)
    /// The GraphQL response had `errors`: each one's message, path, locations and extensions,
    /// the partial data beside them, and the HTTP response (any status).
    case graphQL(GraphQLFailure)
    /// Anything else, with its cause.
    case unknown(underlying: (any Error)?)

    /// How much of an error response's body is kept: 64 KiB. Enough for any error document;
    /// a huge error page is cut, not held.
    public static let keptBodyBytes = 64 * 1024

    /// The HTTP response the error came from, if it came from one.
    public var response: HTTPResponse? {
        switch self {
        case .unauthorized(let response): response
        case .forbidden(let response), .notFound(let response), .conflict(let response),
             .notModified(let response), .serverError(let response):
            response
        case .graphQL(let failure): failure.response
        default: nil
        }
    }

    /// The HTTP status the error came from, if it came from one.
    public var statusCode: Int? { response?.status }

    /// The server's message: the ``errorBody``'s ``ServerErrorMessage/message`` when it has one,
    /// else the `message` of a JSON error body shaped `{"message": …, "code": …}`, if any.
    public var serverMessage: String? {
        guard let response else { return nil }
        if let body = response.errorContext?.errorBody as? any ServerErrorMessage, let message = body.message { return message }
        return ServerErrorBody(response.body)?.message
    }

    /// The server's code, as text: the ``errorBody``'s ``ServerErrorMessage/code`` when it has
    /// one, else the `code` of a `{"message": …, "code": …}` body (numbers are written out).
    public var serverCode: String? {
        guard let response else { return nil }
        if let body = response.errorContext?.errorBody as? any ServerErrorMessage, let code = body.code { return code }
        return ServerErrorBody(response.body)?.code
    }

    /// Whether trying the same request again may succeed.
    public var isRetryable: Bool {
        switch self {
        case .noConnection, .connectionLost, .timeout, .malformedResponse, .overloaded, .componentRestarted:
            return true
        case .cannotConnect(_, _, let reason, _):
            return reason.isTransient
        case .serverError(let response):
            let status = response.status
            return status == 408 || status == 429 || (status >= 500 && status != 501 && status != 505)
        case .invalidURL, .invalidRequest, .invalidResponse, .unauthorized, .invalidToken, .forbidden, .notFound,
             .conflict, .notModified, .tooManyRedirects, .decodingError, .encodingError, .securityError,
             .responseTooLarge, .notCached, .queueFull, .storageFailed, .cancelled, .componentUnavailable, .graphQL, .unknown,
             .circuitOpen:
            return false
        }
    }

    /// The error this one wraps, if any, for logs.
    public var underlyingError: (any Error)? {
        switch self {
        case .noConnection(let error), .timeout(_, let error), .malformedResponse(_, let error), .unknown(let error): error
        case .cannotConnect(_, _, _, let error), .connectionLost(_, _, let error): error
        case .decodingError(let error, _), .encodingError(let error): error
        default: nil
        }
    }
}
