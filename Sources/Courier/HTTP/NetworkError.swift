import Foundation

/// Every way a Courier request can fail, with what a caller needs to decide what to do:
/// ``isRetryable``, ``statusCode`` and a ``userMessage`` fit to show, while the underlying
/// cause (a `URLError`, a `DecodingError`…) stays attached for logs.
public enum NetworkError: Error, Sendable {
    /// The URL could not be built or is not a valid HTTP(S) URL. The string says why.
    case invalidURL(String)
    /// The request itself is malformed (e.g. a header name or value with CR/LF). Never sent.
    case invalidRequest(String)
    /// No network path to the server: offline, DNS failure, connection refused or lost.
    case noConnection(underlying: (any Error)?)
    /// The request or one attempt of it exceeded its timeout.
    case timeout(underlying: (any Error)?)
    /// HTTP 401: the credentials are missing, expired or revoked.
    case unauthorized
    /// HTTP 403: the credentials are valid but not allowed to do this.
    case forbidden
    /// HTTP 404.
    case notFound
    /// HTTP 409, with the server's body (it usually describes the conflicting state).
    case conflict(body: Data)
    /// Any other non-2xx final status (4xx, 5xx, or a 1xx/3xx the transport did not resolve),
    /// with the server's message when its body carried one.
    case serverError(status: Int, message: String?)
    /// The response body could not be decoded into the expected type.
    /// `bodyPrefix` holds the first bytes of the body, for logs.
    case decodingError(underlying: any Error, bodyPrefix: String)
    /// The request body could not be encoded.
    case encodingError(underlying: any Error)
    /// A security rule refused the request or response (plain HTTP, a downgrade redirect…).
    case securityError(String)
    /// The response body exceeded the configured maximum size, in bytes.
    case responseTooLarge(limit: Int)
    /// The caller's task was cancelled; the request was cancelled at the transport.
    case cancelled
    /// The pipeline is at capacity (in-flight and queued requests); try again later.
    case overloaded
    /// The component that must handle this is stopped and will not come back
    /// (shut down, or its supervisor gave up restarting it).
    case componentUnavailable(String)
    /// The component failed while handling this request and is being restarted; the request
    /// may or may not have had an effect.
    case componentRestarted(String)
    /// Anything else, with its cause.
    case unknown(underlying: (any Error)?)

    /// Whether trying the same request again may succeed.
    public var isRetryable: Bool {
        switch self {
        case .noConnection, .timeout, .overloaded, .componentRestarted:
            return true
        case .serverError(let status, _):
            return status == 408 || status == 429 || (status >= 500 && status != 501 && status != 505)
        case .invalidURL, .invalidRequest, .unauthorized, .forbidden, .notFound, .conflict,
             .decodingError, .encodingError, .securityError, .responseTooLarge, .cancelled,
             .componentUnavailable, .unknown:
            return false
        }
    }

    /// The HTTP status the error came from, if it came from one.
    public var statusCode: Int? {
        switch self {
        case .unauthorized: 401
        case .forbidden: 403
        case .notFound: 404
        case .conflict: 409
        case .serverError(let status, _): status
        default: nil
        }
    }

    /// A sentence fit to show to an end user.
    public var userMessage: String {
        switch self {
        case .invalidURL, .invalidRequest: "The request could not be prepared."
        case .noConnection: "No internet connection. Check your connection and try again."
        case .timeout: "The request took too long. Please try again."
        case .unauthorized: "Your session has expired. Please sign in again."
        case .forbidden: "You don't have permission to do this."
        case .notFound: "The requested resource does not exist."
        case .conflict: "This was changed elsewhere. Refresh and try again."
        case .serverError(let status, _) where (400..<500).contains(status): "The request was refused (\(status))."
        case .serverError(let status, _) where status >= 500: "The server had a problem (\(status)). Please try again later."
        case .serverError(let status, _): "The server gave an unexpected answer (\(status))."
        case .decodingError: "The server's response could not be read."
        case .encodingError: "The request could not be prepared."
        case .securityError: "The connection is not secure."
        case .responseTooLarge: "The server's response was too large."
        case .cancelled: "The request was cancelled."
        case .overloaded, .componentRestarted: "The service is busy. Please try again."
        case .componentUnavailable: "The service is not available."
        case .unknown: "Something went wrong."
        }
    }

    /// The error this one wraps, if any, for logs.
    public var underlyingError: (any Error)? {
        switch self {
        case .noConnection(let error), .timeout(let error), .unknown(let error): error
        case .decodingError(let error, _), .encodingError(let error): error
        default: nil
        }
    }
}

extension NetworkError: CustomStringConvertible {
    /// A description for logs: the case, its context and the underlying cause.
    public var description: String {
        let base: String
        switch self {
        case .invalidURL(let reason): base = "invalidURL: \(reason)"
        case .invalidRequest(let reason): base = "invalidRequest: \(reason)"
        case .noConnection: base = "noConnection"
        case .timeout: base = "timeout"
        case .unauthorized: base = "unauthorized (401)"
        case .forbidden: base = "forbidden (403)"
        case .notFound: base = "notFound (404)"
        case .conflict(let body): base = "conflict (409), \(body.count)-byte body"
        case .serverError(let status, let message): base = "serverError(\(status))" + (message.map { ": \($0)" } ?? "")
        case .decodingError(_, let prefix): base = "decodingError, body starts with: \(prefix)"
        case .encodingError: base = "encodingError"
        case .securityError(let reason): base = "securityError: \(reason)"
        case .responseTooLarge(let limit): base = "responseTooLarge (limit \(limit) bytes)"
        case .cancelled: base = "cancelled"
        case .overloaded: base = "overloaded"
        case .componentUnavailable(let name): base = "componentUnavailable(\(name))"
        case .componentRestarted(let name): base = "componentRestarted(\(name))"
        case .unknown: base = "unknown"
        }
        guard let cause = underlyingError else { return base }
        return "\(base) (cause: \(String(reflecting: cause)))"
    }
}
