/// The body type for calls whose response body is ignored (204, or anything you do not read):
/// nothing is decoded.
public struct EmptyResponse: Decodable, Sendable, Equatable {
    /// The empty value.
    public init() {}
    /// Reads nothing.
    public init(from decoder: any Decoder) throws {}
}
