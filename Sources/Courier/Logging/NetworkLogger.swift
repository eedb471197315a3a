/// Where Courier writes its logs. Deliberately tiny so any logging system can adapt to it
/// (see the swift-log adapter in README.md).
public protocol NetworkLogger: Sendable {
    /// Lines below this level are not built at all.
    var minimumLevel: LogLevel { get }
    /// Writes one line. `metadata` is already redacted.
    func log(_ level: LogLevel, _ message: String, metadata: [String: String])
}

extension NetworkLogger {
    /// Whether a line at `level` would be written.
    public func isEnabled(_ level: LogLevel) -> Bool { level >= minimumLevel }
}
