import Courier
import Foundation
import Tracing

/// OpenTelemetry's HTTP client semantic conventions, as span attributes.
enum HTTPAttributes {
    static let knownMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"]

    /// `{method}`, or `HTTP` for a method the conventions do not know.
    static func spanName(_ method: HTTPMethod) -> String {
        knownMethods.contains(method.rawValue) ? method.rawValue : "HTTP"
    }

    /// `http.request.method` (`_OTHER` and `http.request.method_original` for another),
    /// `url.full` (redacted: no credentials, no secret query values, no fragment), `url.scheme`,
    /// `server.address`, `server.port`.
    static func describe(method: HTTPMethod, url: URL?, on span: any Span, redaction: Redaction) {
        if knownMethods.contains(method.rawValue) {
            span.attributes["http.request.method"] = method.rawValue
        } else {
            span.attributes["http.request.method"] = "_OTHER"
            span.attributes["http.request.method_original"] = method.rawValue
        }
        guard let url else { return }
        span.attributes["url.full"] = redaction.url(url)
        if let scheme = url.scheme { span.attributes["url.scheme"] = scheme }
        if let host = url.host { span.attributes["server.address"] = host }
        if let port = url.port ?? (url.scheme == "https" ? 443 : url.scheme == "http" ? 80 : nil) {
            span.attributes["server.port"] = port
        }
    }

    static func describe(_ request: HTTPRequest, on span: any Span, redaction: Redaction) {
        describe(method: request.method, url: request.url, on: span, redaction: redaction)
    }

    /// `http.response.status_code`; a 4xx or 5xx also sets `error.type` to the status and the
    /// span's status to error (a client span's rule).
    static func record(status: Int, on span: any Span) {
        span.attributes["http.response.status_code"] = status
        if status >= 400 {
            span.attributes["error.type"] = String(status)
            span.setStatus(SpanStatus(code: .error))
        }
    }

    /// The error recorded on the span, its status error, `error.type` the status (an error
    /// status) or the kind of failure (`timeout`, `no_connection`, …).
    static func record(_ error: NetworkError, on span: any Span) {
        if let status = error.statusCode {
            span.attributes["http.response.status_code"] = status
            span.attributes["error.type"] = String(status)
        } else {
            span.attributes["error.type"] = errorType(error)
        }
        span.recordError(error)
        span.setStatus(SpanStatus(code: .error, message: error.description))
    }

    /// ``record(_:on:)`` for an error of any type: a step's error reaches here as a
    /// `NetworkError`, but it comes through untyped.
    static func record(_ error: any Error, on span: any Span) {
        if let error = error as? NetworkError {
            record(error, on: span)
        } else {
            span.attributes["error.type"] = "_OTHER"
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error, message: String(describing: error)))
        }
    }

    static func errorType(_ error: NetworkError) -> String {
        switch error {
        case .noConnection: "no_connection"
        case .cannotConnect: "cannot_connect"
        case .connectionLost: "connection_lost"
        case .timeout: "timeout"
        case .malformedResponse: "malformed_response"
        case .invalidResponse: "invalid_response"
        case .cancelled: "cancelled"
        case .tooManyRedirects: "too_many_redirects"
        case .securityError: "security"
        case .responseTooLarge: "response_too_large"
        case .decodingError: "decoding"
        case .overloaded: "overloaded"
        case .circuitOpen: "circuit_open"
        case .graphQL: "graphql"
        default: "_OTHER"
        }
    }
}
