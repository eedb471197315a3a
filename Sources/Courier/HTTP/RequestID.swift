/// Identifies one request through the pipeline, its events and its logs.
public struct RequestID: Hashable, Sendable, CustomStringConvertible {
    /// The number, unique within one client.
    public let rawValue: UInt64
    /// Wraps a number (the client numbers its requests from 1).
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    /// `#` and the number, e.g. `#42`.
    public var description: String { "#\(rawValue)" }
}
