import Foundation

/// A typed description of one API call: where it goes, what it sends, and what it returns.
///
///     let user = try await client.send(Endpoint<User>(path: "users/42", version: .v1))
///
/// `Value` is what the body decodes to (the `value` of the ``Response`` that `send` returns);
/// use ``EmptyResponse`` when there is no body to read.
public struct Endpoint<Value: Decodable & Sendable>: Sendable {
    /// The fields, in a value that is not generic (what the client sends from).
    @usableFromInline
    var untyped: UntypedEndpoint

    /// The path under the client's base URL, as segments: each is percent-encoded whole, so a
    /// `/` inside one is sent as `%2F` (`["files", "a/b"]` → `/files/a%2Fb`).
    public var segments: [String] {
        get { untyped.segments }
        set { untyped.segments = newValue }
    }
    /// Whether the URL's path ends with `/` (some servers route `/users/` and `/users` apart).
    public var hasTrailingSlash: Bool {
        get { untyped.hasTrailingSlash }
        set { untyped.hasTrailingSlash = newValue }
    }
    /// The HTTP method. Default GET.
    public var method: HTTPMethod {
        get { untyped.method }
        set { untyped.method = newValue }
    }
    /// Query items, in order.
    public var query: [URLQueryItem] {
        get { untyped.query }
        set { untyped.query = newValue }
    }
    /// Extra headers for this call.
    public var headers: HTTPHeaders {
        get { untyped.headers }
        set { untyped.headers = newValue }
    }
    /// A value encoded as the JSON body, with the client's JSON settings.
    public var body: (any Encodable & Sendable)? {
        get { untyped.body }
        set { untyped.body = newValue }
    }
    /// An API version prefix (`/v1/...`), or `nil` for none.
    public var version: APIVersion? {
        get { untyped.version }
        set { untyped.version = newValue }
    }
    /// Per-call overrides of the client's defaults.
    public var options: RequestOptions {
        get { untyped.options }
        set { untyped.options = newValue }
    }

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
        untyped = UntypedEndpoint(
            segments: segments, hasTrailingSlash: false, method: method, query: query, headers: headers, body: body,
            version: version, options: options)
    }
}
