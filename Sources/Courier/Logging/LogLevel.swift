/// How important a log line is.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    /// Step-by-step detail, for tracing one request.
    case trace
    /// Detail useful while debugging.
    case debug
    /// Normal operation: requests and responses.
    case info
    /// Something unusual that Courier handled (a missing security header, a refused retry).
    case warning
    /// A failure.
    case error

    /// Orders levels from `trace` (least important) to `error`.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}
