extension NetworkError: CustomStringConvertible {
    /// A description for logs, on one line: the case, its context (status, the server's message
    /// and code, which limit) and the underlying cause. Never the response body itself.
    public var description: String {
        let base: String
        switch self {
        case .invalidURL(let reason): base = "invalidURL: \(reason)"
        case .invalidRequest(let reason): base = "invalidRequest: \(reason)"
        case .invalidResponse(let reason): base = "invalidResponse: \(reason)"
        case .malformedResponse(let reason, _): base = "malformedResponse: \(reason)"
        case .noConnection: base = "noConnection"
        case .timeout(.attempt, _): base = "timeout (attempt timeout)"
        case .timeout(.request, _): base = "timeout (request deadline)"
        case .unauthorized(nil): base = "unauthorized (no credentials to send)"
        case .unauthorized: base = "unauthorized (401)"
        case .forbidden: base = "forbidden (403)"
        case .notFound: base = "notFound (404)"
        case .conflict(let response): base = "conflict (409), \(response.body.count)-byte body"
        case .notModified: base = "notModified (304)"
        case .serverError(let response): base = "serverError(\(response.status))"
        case .tooManyRedirects(let limit): base = "tooManyRedirects (more than \(limit))"
        case .decodingError(_, let prefix): base = "decodingError, body starts with: \(prefix)"
        case .encodingError: base = "encodingError"
        case .securityError(let reason): base = "securityError: \(reason)"
        case .invalidToken(let reason): base = "invalidToken: \(reason)"
        case .responseTooLarge(let limit): base = "responseTooLarge (limit \(limit) bytes)"
        case .cancelled: base = "cancelled"
        case .overloaded: base = "overloaded"
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
        if let cause = underlyingError { text += " (cause: \(String(reflecting: cause)))" }
        // One line, whatever a body prefix, a server's message or a cause holds: a log line
        // stays one line.
        return text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
