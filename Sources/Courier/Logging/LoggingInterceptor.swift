import Foundation

/// Logs each attempt's request and response through a ``NetworkLogger``, with secrets redacted.
///
/// Detail levels follow the seeds: `minimal` (method, URL, status), `standard` (+ headers),
/// `verbose` (+ bodies, cut at ``bodyLimit`` bytes). Redaction is on by default: credential
/// headers, token-like query parameters and JSON fields never reach the log.
public struct LoggingInterceptor: RequestInterceptor, ResponseInterceptor {
    /// How much of each exchange is logged.
    public enum Detail: Sendable, Equatable {
        /// Method, URL, status.
        case minimal
        /// Plus headers.
        case standard
        /// Plus bodies.
        case verbose
    }

    /// Where lines go.
    public let logger: any NetworkLogger
    /// How much is logged. Default `standard`.
    public var detail: Detail
    /// What is hidden. Default ``Redaction/init(headers:parameters:)``'s defaults.
    public var redaction: Redaction
    /// The most body bytes logged. Default 1000.
    public var bodyLimit: Int

    /// Creates a logging interceptor.
    public init(logger: any NetworkLogger, detail: Detail = .standard, redaction: Redaction = Redaction(), bodyLimit: Int = 1000) {
        self.logger = logger
        self.detail = detail
        self.redaction = redaction
        self.bodyLimit = bodyLimit
    }

    public func intercept(_ request: HTTPRequest, context: RequestContext) -> RequestInterception {
        guard logger.isEnabled(.info) else { return .proceed(request) }
        var metadata = [
            "request": context.id.description, "attempt": String(context.attempt),
            "method": request.method.rawValue, "url": redaction.url(request.url),
        ]
        if detail != .minimal { metadata["headers"] = describe(request.headers) }
        if detail == .verbose, let body = request.body { metadata["body"] = redaction.body(body, limit: bodyLimit) }
        logger.log(.info, "request", metadata: metadata)
        return .proceed(request)
    }

    public func intercept(_ response: HTTPResponse, to request: HTTPRequest, context: RequestContext) -> HTTPResponse {
        let level: LogLevel = switch response.status {
        case ..<400: .info
        case 400..<500: .warning
        default: .error
        }
        guard logger.isEnabled(level) else { return response }
        var metadata = [
            "request": context.id.description, "attempt": String(context.attempt),
            "status": String(response.status), "url": redaction.url(request.url),
        ]
        if detail != .minimal { metadata["headers"] = describe(response.headers) }
        if detail == .verbose { metadata["body"] = redaction.body(response.body, limit: bodyLimit) }
        logger.log(level, "response", metadata: metadata)
        return response
    }

    private func describe(_ headers: HTTPHeaders) -> String {
        headers.map { "\($0.name): \(redaction.value(ofHeader: $0.name, $0.value))" }.joined(separator: "; ")
    }
}
