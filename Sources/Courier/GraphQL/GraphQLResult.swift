/// A GraphQL response as the server gave it: the `data` (partial when some fields failed),
/// the `errors`, the `extensions`, and the HTTP response they came in.
public struct GraphQLResult<Data: Sendable>: Sendable {
    /// The decoded `data`; `nil` when the server sent none (or `null`).
    public let data: Data?
    /// The `errors`, empty when there were none.
    public let errors: [GraphQLError]
    /// The response's `extensions`, when it had any.
    public let extensions: [String: JSONValue]?
    /// The HTTP response (status, headers, metrics); its body is the JSON the above came from.
    public let response: HTTPResponse

    /// A result (for tests and interceptors).
    public init(data: Data?, errors: [GraphQLError] = [], extensions: [String: JSONValue]? = nil, response: HTTPResponse) {
        self.data = data
        self.errors = errors
        self.extensions = extensions
        self.response = response
    }
}
