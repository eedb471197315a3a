import Foundation

/// A typed description of one API call: where it goes, what it sends, and what it returns.
///
///     let user = try await client.send(Endpoint<User>(path: "users/42", version: .v1))
///
/// `Response` is what the body decodes to; use ``EmptyResponse`` when there is no body to read.
public struct Endpoint<Response: Decodable & Sendable>: Sendable {
    /// The path under the client's base URL (literal text; it is percent-encoded for you).
    public var path: String
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

    /// Creates an endpoint; only the path is required.
    public init(
        path: String,
        method: HTTPMethod = .get,
        query: [URLQueryItem] = [],
        headers: HTTPHeaders = [:],
        body: (any Encodable & Sendable)? = nil,
        version: APIVersion? = nil,
        options: RequestOptions = RequestOptions()
    ) {
        self.path = path
        self.method = method
        self.query = query
        self.headers = headers
        self.body = body
        self.version = version
        self.options = options
    }
}
