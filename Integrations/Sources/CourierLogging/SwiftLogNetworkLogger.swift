public import Courier
public import Logging

/// Courier's ``Courier/NetworkLogger`` over a swift-log `Logger`: every line Courier writes
/// (requests, responses, retries, security warnings) goes to the logger's handler, with Courier's
/// level mapped to swift-log's and each metadata field as a `.string` value beside the logger's
/// own metadata.
///
/// Courier redacts before it logs: the lines and metadata this logger receives already have
/// credentials, cookies and token-like parameters replaced (the client's
/// `configuration.logging.redaction`), so nothing secret reaches the handler.
///
/// ```swift
/// let client = APIClient(configuration: .init(baseURL: base,
///     logging: .init(logger: SwiftLogNetworkLogger(Logger(label: "courier")), detail: .standard)))
/// ```
public struct SwiftLogNetworkLogger: NetworkLogger {
    /// Where the lines go.
    public let logger: Logging.Logger
    /// Lines below this level are not built. Default: the swift-log logger's own `logLevel`
    /// (``courierLevel(atLeast:)``), read once here.
    public let minimumLevel: Courier.LogLevel

    /// A logger writing to `logger`. `minimumLevel` defaults to the lowest Courier level that
    /// `logger.logLevel` lets through, so Courier does not build lines the handler would drop.
    public init(_ logger: Logging.Logger, minimumLevel: Courier.LogLevel? = nil) {
        self.logger = logger
        self.minimumLevel = minimumLevel ?? Self.courierLevel(atLeast: logger.logLevel)
    }

    /// Writes one line at the swift-log level matching `level` (``swiftLogLevel(_:)``).
    public func log(_ level: Courier.LogLevel, _ message: String, metadata: [String: String]) {
        guard isEnabled(level) else { return }
        logger.log(
            level: Self.swiftLogLevel(level), "\(message)", metadata: metadata.mapValues { .string($0) }, source: "Courier")
    }

    /// Courier's level as swift-log's: `trace`, `debug`, `info`, `warning` and `error` are the
    /// same names (swift-log's `notice` and `critical` have no Courier counterpart).
    public static func swiftLogLevel(_ level: Courier.LogLevel) -> Logging.Logger.Level {
        switch level {
        case .trace: .trace
        case .debug: .debug
        case .info: .info
        case .warning: .warning
        case .error: .error
        }
    }

    /// The lowest Courier level whose lines a swift-log logger at `level` writes: `notice` lets
    /// through Courier's `warning` and above; `critical`, nothing of Courier's but `error`
    /// lines (which the handler then drops).
    public static func courierLevel(atLeast level: Logging.Logger.Level) -> Courier.LogLevel {
        switch level {
        case .trace: .trace
        case .debug: .debug
        case .info: .info
        case .notice, .warning: .warning
        case .error, .critical: .error
        }
    }
}

extension APIClient.Configuration.Logging {
    /// Logging through swift-log: ``SwiftLogNetworkLogger`` over `logger`, with Courier's detail,
    /// redaction (on by default) and body limit.
    public static func swiftLog(
        _ logger: Logging.Logger, detail: LogDetail = .standard, redaction: Redaction = Redaction(), bodyLimit: Int = 1000
    ) -> Self {
        Self(logger: SwiftLogNetworkLogger(logger), detail: detail, redaction: redaction, bodyLimit: bodyLimit)
    }
}
