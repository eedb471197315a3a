import Foundation

/// A typed description of one API call: where it goes, what it sends, and what it returns.
///
///     let user = try await client.send(Endpoint<User>(path: "users/42", version: .v1))
///
/// `Response` is what the body decodes to; use ``EmptyResponse`` when there is no body to read.
public struct Endpoint<Response: Decodable & Sendable>: Sendable {
    /// The path under the client's base URL, as segments: each is percent-encoded whole, so a
    /// `/` inside one is sent as `%2F` (`["files", "a/b"]` → `/files/a%2Fb`).
    public var segments: [String]
    /// Whether the URL's path ends with `/` (some servers route `/users/` and `/users` apart).
    public var hasTrailingSlash: Bool
    /// The HTTP method. Default GET.
    public var method: HTTPMethod
    /// Query items, in order.
    public var query: [URLQueryItem]
    /// Extra headers for this call.
    public var headers: HTTPHeaders
    /// A value encoded as the JSON body, with the client's JSON settings.
    public var body: (any Encodable & Sendable)?
    /// An API version prefix (`/v1/...`), or `nil` for none.
    public var version: APIVersion?
    /// Per-call overrides of the client's defaults.
    public var options: RequestOptions

    /// Creates an endpoint from a textual path: literal text (never pre-encoded: `%` is a
    /// percent sign), split on `/` into segments, each percent-encoded; a trailing `/` is kept.
    public init(
        path: String,
        method: HTTPMethod = .get,
        query: [URLQueryItem] = [],
        headers: HTTPHeaders = [:],
        body: (any Encodable & Sendable)? = nil,
        version: APIVersion? = nil,
        options: RequestOptions = RequestOptions()
    ) {
        self.init(
            segments: URLBuilder.segments(of: path), method: method, query: query, headers: headers, body: body,
            version: version, options: options)
        hasTrailingSlash = path.utf8.last == UInt8(ascii: "/")
    }

    /// Creates an endpoint from path segments, each percent-encoded whole: use it when a
    /// segment may contain `/` (a file name, an opaque identifier).
    public init(
        segments: [String],
        method: HTTPMethod = .get,
        query: [URLQueryItem] = [],
        headers: HTTPHeaders = [:],
        body: (any Encodable & Sendable)? = nil,
        version: APIVersion? = nil,
        options: RequestOptions = RequestOptions()
    ) {
        self.segments = segments
        self.hasTrailingSlash = false
        self.method = method
        self.query = query
        self.headers = headers
        self.body = body
        self.version = version
        self.options = options
    }

    /// The path's segments under the base URL, the version's first when there is one.
    var segmentsWithVersion: [String] {
        version.map { [$0.rawValue] + segments } ?? segments
    }
}
