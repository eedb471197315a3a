import Foundation

/// Writes `[courier] LEVEL message key=value ...` lines to standard error. Courier logs nothing
/// unless a logger is configured; this is the one to configure when you just want to see.
public struct StandardErrorLogger: NetworkLogger {
    /// Lines below this level are not written.
    public let minimumLevel: LogLevel

    /// Creates a logger writing lines at `minimumLevel` and above.
    public init(minimumLevel: LogLevel = .info) {
        self.minimumLevel = minimumLevel
    }

    /// Writes one line to standard error, if `level` is at least ``minimumLevel``.
    public func log(_ level: LogLevel, _ message: String, metadata: [String: String]) {
        guard isEnabled(level) else { return }
        // Not `FileHandle.write(_:)`, which stops the process when the write fails (a closed
        // stderr, a signal): a log line is dropped instead.
        try? FileHandle.standardError.write(contentsOf: Data(Self.line(level, message, metadata: metadata).utf8))
    }

    /// One line as written: the level in capitals, the message, then the metadata sorted by
    /// key, with CR and LF escaped so that a value cannot forge a second line.
    static func line(_ level: LogLevel, _ message: String, metadata: [String: String]) -> String {
        let fields = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let text = "\(String(describing: level).uppercased()) \(message)\(fields.isEmpty ? "" : " " + fields)"
        let escaped = text.replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n")
        return "[courier] \(escaped)\n"
    }
}
