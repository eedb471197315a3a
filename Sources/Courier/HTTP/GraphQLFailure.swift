/// What ``NetworkError/graphQL(_:)`` carries: the response's GraphQL errors, and the data
/// that did arrive beside them (a partial result), decoded.
public struct GraphQLFailure: Sendable, CustomStringConvertible {
    /// The `errors`: never empty.
    public let errors: [GraphQLError]
    /// The decoded `data` beside the errors, when there was any; read it with
    /// ``partialData(as:)``.
    let data: (any Sendable)?
    /// The HTTP response (any status: a non-2xx with a GraphQL body keeps its errors here).
    public let response: HTTPResponse

    /// A failure with `errors` (at least one), the partial `data` beside them, and the
    /// `response` (for tests and interceptors).
    public init(errors: [GraphQLError], data: (any Sendable)? = nil, response: HTTPResponse) {
        self.errors = errors
        self.data = data
        self.response = response
    }

    /// The partial data, as the operation's `Data` type; `nil` when none arrived.
    ///
    /// ```swift
    /// catch .graphQL(let failure) { let hero = failure.partialData(as: HeroQuery.Data.self)?.hero }
    /// ```
    public func partialData<Data>(as type: Data.Type) -> Data? { data as? Data }

    /// The errors' messages, one after another.
    public var description: String { errors.map(\.description).joined(separator: "; ") }
}
