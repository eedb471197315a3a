import Foundation

extension NetworkError: CustomStringConvertible {
    /// A description for logs, on one line: the case; for an error status, the status and the
    /// request it answers (method and URL, as sent by the pipeline); the server's message and
    /// code; for a connection, the host, port and why; the underlying cause. Redacted as the
    /// default ``Redaction`` redacts logs: secret query values, user info, and JSON fields of a
    /// body prefix; never the response body itself.
    ///
    /// `serverError(418) POST https://api.example.com/v1/tea: I'm a teapot [code teapot]`,
    /// `cannotConnect 127.0.0.1:8899: connection refused (cause: curl error 7: …)`.
    public var description: String {
        let redaction = Redaction()
        let base: String
        switch self {
        case .invalidURL(let reason): base = "invalidURL: \(reason)"
        case .invalidRequest(let reason): base = "invalidRequest: \(reason)"
        case .invalidResponse(let reason): base = "invalidResponse: \(reason)"
        case .malformedResponse(let reason, _): base = "malformedResponse: \(reason)"
        case .noConnection: base = "noConnection: the device is offline"
        case .cannotConnect(let host, let port, let reason, _): base = "cannotConnect \(Self.hostAndPort(host, port)): \(reason)"
        case .connectionLost(let host, let port, _):
            base = "connectionLost \(Self.hostAndPort(host, port)): the connection broke before any response"
        case .timeout(.attempt, _): base = "timeout (attempt timeout)"
        case .timeout(.request, _): base = "timeout (request deadline)"
        case .unauthorized(nil): base = "unauthorized (no credentials to send)"
        case .unauthorized(let response?): base = "unauthorized (401)" + Self.request(of: response, redaction)
        case .forbidden(let response): base = "forbidden (403)" + Self.request(of: response, redaction)
        case .notFound(let response): base = "notFound (404)" + Self.request(of: response, redaction)
        case .conflict(let response): base = "conflict (409)" + Self.request(of: response, redaction) + ", \(response.body.count)-byte body"
        case .notModified(let response): base = "notModified (304)" + Self.request(of: response, redaction)
        case .serverError(let response): base = "serverError(\(response.status))" + Self.request(of: response, redaction)
        case .tooManyRedirects(let limit): base = "tooManyRedirects (more than \(limit))"
        case .decodingError(_, let prefix):
            base = "decodingError, body starts with: \(redaction.body(Data(prefix.utf8), limit: prefix.utf8.count))"
        case .encodingError: base = "encodingError"
        case .securityError(let reason): base = "securityError: \(reason)"
        case .invalidToken(let reason): base = "invalidToken: \(reason)"
        case .responseTooLarge(let limit): base = "responseTooLarge (limit \(limit) bytes)"
        case .cancelled: base = "cancelled"
        case .overloaded: base = "overloaded"
        case .circuitOpen(let origin, let retryAfter):
            base = retryAfter > .zero
                ? "circuitOpen \(origin): not called, probes again in \(retryAfter.readable)"
                : "circuitOpen \(origin): not called until a probe under way ends"
        case .notCached: base = "notCached"
        case .queueFull(let limit): base = "queueFull (limit \(limit) items)"
        case .storageFailed(let reason): base = "storageFailed: \(reason)"
        case .componentUnavailable(let name):
            if let group = ClientGroup(rawValue: name) {
                base = "componentUnavailable(\(name)): the client was created without \(group.configurationField)"
            } else {
                base = "componentUnavailable(\(name)): stopped (the client shut down, or its supervisor gave up restarting it)"
            }
        case .componentRestarted(let name): base = "componentRestarted(\(name))"
        case .graphQL(let failure): base = "graphQL (\(failure.errors.count) errors): \(failure)"
        case .unknown: base = "unknown"
        }
        var text = base
        if let message = serverMessage { text += ": \(message)" }
        if let code = serverCode { text += " [code \(code)]" }
        if let cause = underlyingError { text += " (cause: \(Self.redactingURLs(in: String(reflecting: cause), redaction)))" }
        // One line, whatever a body prefix, a server's message or a cause holds: a log line
        // stays one line.
        return text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// ` GET https://…/v1/users/42`: the request the response answers, when the pipeline made
    /// the error (a response built by hand knows none).
    private static func request(of response: HTTPResponse, _ redaction: Redaction) -> String {
        guard let context = response.errorContext else { return "" }
        return " \(context.method) \(redaction.url(context.url))"
    }

    /// `text` with every `http://` or `https://` URL in it redacted: a cause (a `URLError`'s
    /// failing URL) may quote the request's URL, query secrets included.
    static func redactingURLs(in text: String, _ redaction: Redaction) -> String {
        guard text.contains("http://") || text.contains("https://") else { return text }
        var result = ""
        var rest = Substring(text)
        while let first = [rest.range(of: "http://"), rest.range(of: "https://")].compactMap({ $0 }).min(by: { $0.lowerBound < $1.lowerBound }) {
            result += rest[..<first.lowerBound]
            let tail = rest[first.lowerBound...]
            let end = tail.firstIndex { $0.isWhitespace || $0 == "}" || $0 == ")" || $0 == "\"" || $0 == ">" } ?? tail.endIndex
            let candidate = String(tail[..<end])
            result += URL(string: candidate).map(redaction.url) ?? candidate
            rest = tail[end...]
        }
        return result + rest
    }
}
