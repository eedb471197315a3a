/// An API version, used as the first path segment (`v1`).
public struct APIVersion: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    /// The segment as written, e.g. `v1`.
    public let rawValue: String
    /// Creates a version from its segment.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates a version from a literal, e.g. `"v3"`.
    public init(stringLiteral value: String) { self.rawValue = value }
    /// `v1`
    public static let v1: APIVersion = "v1"
    /// `v2`
    public static let v2: APIVersion = "v2"
}
