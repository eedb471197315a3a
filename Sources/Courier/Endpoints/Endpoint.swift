import Foundation

/// A typed description of one API call: where it goes, what it sends, and what it returns.
///
///     let user = try await client.send(Endpoint<User>(path: "users/42", version: .v1))
///
/// `Value` is what the response body decodes to (the `value` of the ``Response`` that `send`
/// returns): a `Decodable` type read as JSON; `String` for the body as text (its `charset`,
/// UTF-8 by default); `Data` for the raw bytes; ``EmptyResponse`` when there is nothing to read.
///
/// The request body is a ``RequestBody``: JSON, bytes, text, a form, a multipart form, a file
/// (`Endpoint(path: "login", method: .post, body: .form(["user": "ada"]))`). An `Encodable`
/// value given as `body` is sent as JSON (a `Data` as raw bytes).
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
    /// What the request sends, with its `Content-Type` (unless ``headers`` set one); `nil` for
    /// no body.
    public var body: RequestBody? {
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
    /// `body` is sent as JSON with the client's settings (a `Data` as raw bytes,
    /// `application/octet-stream` unless `headers` name its type).
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
            path: path, method: method, query: query, headers: headers, requestBody: body.map(RequestBody.json),
            version: version, options: options)
    }

    /// Creates an endpoint from a textual path, split and encoded as by the initializer above,
    /// that sends `body`: a form, a multipart form, a file, bytes, text or JSON.
    public init(
        path: String,
        method: HTTPMethod = .get,
        query: [URLQueryItem] = [],
        headers: HTTPHeaders = [:],
        body: RequestBody,
        version: APIVersion? = nil,
        options: RequestOptions = RequestOptions()
    ) {
        self.init(path: path, method: method, query: query, headers: headers, requestBody: body, version: version, options: options)
    }

    /// Creates an endpoint from path segments, each percent-encoded whole: use it when a
    /// segment may contain `/` (a file name, an opaque identifier). `body` is sent as JSON (a
    /// `Data` as raw bytes).
    public init(
        segments: [String],
        method: HTTPMethod = .get,
        query: [URLQueryItem] = [],
        headers: HTTPHeaders = [:],
        body: (any Encodable & Sendable)? = nil,
        version: APIVersion? = nil,
        options: RequestOptions = RequestOptions()
    ) {
        self.init(
            segments: segments, method: method, query: query, headers: headers, requestBody: body.map(RequestBody.json),
            version: version, options: options)
    }

    /// Creates an endpoint from path segments, each percent-encoded whole, that sends `body`.
    public init(
        segments: [String],
        method: HTTPMethod = .get,
        query: [URLQueryItem] = [],
        headers: HTTPHeaders = [:],
        body: RequestBody,
        version: APIVersion? = nil,
        options: RequestOptions = RequestOptions()
    ) {
        self.init(segments: segments, method: method, query: query, headers: headers, requestBody: body, version: version, options: options)
    }

    private init(
        path: String, method: HTTPMethod, query: [URLQueryItem], headers: HTTPHeaders, requestBody: RequestBody?,
        version: APIVersion?, options: RequestOptions
    ) {
        self.init(
            segments: URLBuilder.segments(of: path), method: method, query: query, headers: headers,
            requestBody: requestBody, version: version, options: options)
        hasTrailingSlash = path.utf8.last == UInt8(ascii: "/")
    }

    private init(
        segments: [String], method: HTTPMethod, query: [URLQueryItem], headers: HTTPHeaders, requestBody: RequestBody?,
        version: APIVersion?, options: RequestOptions
    ) {
        // Text and bytes are read whatever their type; anything else is expected as JSON.
        let readsAnyType = Value.self == String.self || Value.self == Data.self
        untyped = UntypedEndpoint(
            segments: segments, hasTrailingSlash: false, method: method, query: query, headers: headers, body: requestBody,
            accept: readsAnyType ? "*/*" : "application/json", version: version, options: options)
    }
}
