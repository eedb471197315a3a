import Foundation

/// The initializers that take the query as a dictionary value (`[String: String]`), sent sorted
/// by name as Alamofire does: a dictionary has no order, and sorting keeps its URL (and the cache
/// key filed under it) the same from run to run.
///
/// A dictionary *literal* still goes to the `KeyValuePairs` initializers and is sent in the
/// order written: these are generic and disfavored, so Swift picks them only for a value that
/// is a dictionary already.
extension Endpoint {
    /// Creates an endpoint from a textual path with the query taken from a dictionary, its
    /// pairs sent sorted by name; otherwise as the initializer that takes `[URLQueryItem]`.
    @_disfavoredOverload
    public init<QueryValue: StringProtocol>(
        path: String,
        method: HTTPMethod = .get,
        query: [String: QueryValue],
        headers: HTTPHeaders = [:],
        body: (any Encodable & Sendable)? = nil,
        version: APIVersion? = nil,
        options: RequestOptions = RequestOptions()
    ) {
        self.init(path: path, method: method, query: Self.sortedItems(query), headers: headers, body: body, version: version, options: options)
    }

    /// Creates an endpoint from a textual path that sends `body`, with the query taken from a
    /// dictionary, its pairs sent sorted by name.
    @_disfavoredOverload
    public init<QueryValue: StringProtocol>(
        path: String,
        method: HTTPMethod = .get,
        query: [String: QueryValue],
        headers: HTTPHeaders = [:],
        body: RequestBody,
        version: APIVersion? = nil,
        options: RequestOptions = RequestOptions()
    ) {
        self.init(path: path, method: method, query: Self.sortedItems(query), headers: headers, body: body, version: version, options: options)
    }

    /// Creates an endpoint from path segments with the query taken from a dictionary, its pairs
    /// sent sorted by name; `body` is sent as JSON (a `Data` as raw bytes).
    @_disfavoredOverload
    public init<QueryValue: StringProtocol>(
        segments: [String],
        method: HTTPMethod = .get,
        query: [String: QueryValue],
        headers: HTTPHeaders = [:],
        body: (any Encodable & Sendable)? = nil,
        version: APIVersion? = nil,
        options: RequestOptions = RequestOptions()
    ) {
        self.init(
            segments: segments, method: method, query: Self.sortedItems(query), headers: headers, body: body, version: version,
            options: options)
    }

    /// Creates an endpoint from path segments that sends `body`, with the query taken from a
    /// dictionary, its pairs sent sorted by name.
    @_disfavoredOverload
    public init<QueryValue: StringProtocol>(
        segments: [String],
        method: HTTPMethod = .get,
        query: [String: QueryValue],
        headers: HTTPHeaders = [:],
        body: RequestBody,
        version: APIVersion? = nil,
        options: RequestOptions = RequestOptions()
    ) {
        self.init(
            segments: segments, method: method, query: Self.sortedItems(query), headers: headers, body: body, version: version,
            options: options)
    }

    private static func sortedItems<QueryValue: StringProtocol>(_ query: [String: QueryValue]) -> [URLQueryItem] {
        query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: String($0.value)) }
    }
}
