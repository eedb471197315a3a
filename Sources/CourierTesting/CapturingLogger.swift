import Courier

/// A ``NetworkLogger`` that keeps every line in memory, so a test can assert on what the client
/// logged (and on what it did not: a redacted token must not appear in any line).
///
///     let logger = CapturingLogger()
///     let client = APIClient(configuration: .init(baseURL: base, logging: .init(logger: logger)))
///     ...
///     #expect(logger.lines.contains { $0.message == "retrying" })
public final class CapturingLogger: NetworkLogger, Sendable {
    /// One captured line.
    public struct Line: Sendable, Equatable {
        /// The line's level.
        public let level: LogLevel
        /// The message, e.g. `request`, `response` or `retrying`.
        public let message: String
        /// The line's metadata, already redacted by Courier.
        public let metadata: [String: String]

        /// Creates a line (for comparisons in tests).
        public init(level: LogLevel, message: String, metadata: [String: String]) {
            self.level = level
            self.message = message
            self.metadata = metadata
        }
    }

    /// Lines below this level are not captured (nor built by Courier).
    public let minimumLevel: LogLevel
    private let captured = Locked<[Line]>([])

    /// Creates a logger capturing every line at `minimumLevel` and above (default: all lines).
    public init(minimumLevel: LogLevel = .trace) {
        self.minimumLevel = minimumLevel
    }

    /// Captures one line, if `level` is at least ``minimumLevel``.
    public func log(_ level: LogLevel, _ message: String, metadata: [String: String]) {
        guard isEnabled(level) else { return }
        captured.withLock { $0.append(Line(level: level, message: message, metadata: metadata)) }
    }

    /// Every line captured so far, in order.
    public var lines: [Line] { captured.withLock { $0 } }

    /// The lines whose message is `message`.
    public func lines(_ message: String) -> [Line] {
        lines.filter { $0.message == message }
    }

    /// Forgets every line captured so far.
    public func reset() {
        captured.withLock { $0.removeAll() }
    }
}
