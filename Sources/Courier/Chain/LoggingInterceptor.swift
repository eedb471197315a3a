import Foundation

/// Logs each attempt's request and response through a ``NetworkLogger``, with secrets redacted:
/// `minimal` detail is method, URL and status, `standard` adds headers, `verbose` adds bodies
/// cut at `bodyLimit` bytes. Credential headers, token-like query parameters and JSON fields
/// never reach the log. The chain has it when the client has a logger and a detail other than
/// ``LogDetail/off``, after auth: every hop is logged as it is sent.
struct LoggingInterceptor: Interceptor, RequestInterceptor, ResponseInterceptor {
    /// Where lines go.
    let logger: any NetworkLogger
    /// How much is logged.
    var detail: LogDetail
    /// What is hidden.
    var redaction: Redaction
    /// The most body bytes logged.
    var bodyLimit: Int

    init(logger: any NetworkLogger, detail: LogDetail = .standard, redaction: Redaction = Redaction(), bodyLimit: Int = 1000) {
        self.logger = logger
        self.detail = detail
        self.redaction = redaction
        self.bodyLimit = bodyLimit
    }

    func intercept(_ request: HTTPRequest, chain: InterceptorChain) async throws -> HTTPResponse {
        let context = chain.context
        log(request, context: context)
        let response = try await chain.proceed(request)
        log(response, to: request, context: context)
        return response
    }

    func intercept(_ request: HTTPRequest, context: RequestContext) -> RequestInterception {
        log(request, context: context)
        return .proceed(request)
    }

    /// Logs `request` as it is sent (what ``intercept(_:context:)`` does).
    func log(_ request: HTTPRequest, context: RequestContext) {
        guard logger.isEnabled(.info) else { return }
        var metadata = [
            "request": context.id.description, "attempt": String(context.attempt),
            "method": request.method.rawValue, "url": redaction.url(request.url),
        ]
        if detail == .standard || detail == .verbose { metadata["headers"] = describe(request.headers) }
        if detail == .verbose, let body = request.body {
            metadata["body"] = redaction.body(body, contentType: request.headers["Content-Type"], limit: bodyLimit)
        }
        logger.log(.info, "request", metadata: metadata)
    }

    func intercept(_ response: HTTPResponse, to request: HTTPRequest, context: RequestContext) -> HTTPResponse {
        log(response, to: request, context: context)
        return response
    }

    /// Logs `response` as it arrived (what ``intercept(_:to:context:)`` does).
    func log(_ response: HTTPResponse, to request: HTTPRequest, context: RequestContext) {
        let level: LogLevel = switch response.status {
        case ..<400: .info
        case 400..<500: .warning
        default: .error
        }
        guard logger.isEnabled(level) else { return }
        var metadata = [
            "request": context.id.description, "attempt": String(context.attempt),
            "status": String(response.status), "url": redaction.url(request.url),
        ]
        if detail == .standard || detail == .verbose { metadata["headers"] = describe(response.headers) }
        if detail == .verbose {
            metadata["body"] = redaction.body(response.body, contentType: response.headers["Content-Type"], limit: bodyLimit)
        }
        logger.log(level, "response", metadata: metadata)
    }

    /// Whether a cache hit is logged: at `verbose` detail, when `info` lines are written.
    var logsCacheHits: Bool { detail == .verbose && logger.isEnabled(.info) }

    /// Logs, at `verbose` detail, that the cache answered `request` (as request `id`) with
    /// `response`, stored `age` ago: no request or response line is logged for it, since
    /// nothing was sent.
    func logCacheHit(_ request: HTTPRequest, _ response: HTTPResponse, age: Duration, id: RequestID) {
        guard logsCacheHits else { return }
        logger.log(.info, "cache hit", metadata: [
            "request": id.description, "method": request.method.rawValue, "url": redaction.url(request.url),
            "status": String(response.status), "age": String(age.components.seconds),
        ])
    }

    private func describe(_ headers: HTTPHeaders) -> String {
        headers.map { "\($0.name): \(redaction.value(ofHeader: $0.name, $0.value))" }.joined(separator: "; ")
    }
}
