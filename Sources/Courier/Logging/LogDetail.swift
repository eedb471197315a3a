/// How much of each request and response the client logs (when it has a logger).
public enum LogDetail: Sendable, Equatable {
    /// No request or response lines; only diagnostics (retries, security warnings).
    case off
    /// Method, URL, status.
    case minimal
    /// Plus headers (credentials redacted).
    case standard
    /// Plus bodies (secret fields redacted), cut at the configured length.
    case verbose
}
