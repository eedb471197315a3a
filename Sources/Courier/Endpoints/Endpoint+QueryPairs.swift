import Foundation

/// The initializers that take the query as a dictionary literal, `query: ["q": "swift", "page": "2"]`,
/// sent in the order written. A `KeyValuePairs`, not a `Dictionary`: a dictionary has no order
/// (a dictionary value is sorted by name instead, see `Endpoint+QueryDictionary.swift`). A name
/// may repeat (`["tag": "a", "tag": "b"]`); a `nil` value sends the name alone (`?flag`).
extension Endpoint {
    /// Creates an endpoint from a textual path with the query written as a dictionary literal,
    /// its pairs sent in order; otherwise as the initializer that takes `[URLQueryItem]`.
    public init(
        path: String,
        method: HTTPMethod = .get,
        query: KeyValuePairs<String, String?>,
        headers: HTTPHeaders = [:],
        body: (any Encodable & Sendable)? = nil,
        version: APIVersion? = nil,
        options: RequestOptions = RequestOptions()
    ) {
        self.init(path: path, method: method, query: Self.items(query), headers: headers, body: body, version: version, options: options)
    }

    /// Creates an endpoint from a textual path that sends `body`, with the query written as a
    /// dictionary literal, its pairs sent in order.
    public init(
        path: String,
        method: HTTPMethod = .get,
        query: KeyValuePairs<String, String?>,
        headers: HTTPHeaders = [:],
        body: RequestBody,
        version: APIVersion? = nil,
        options: RequestOptions = RequestOptions()
    ) {
        self.init(path: path, method: method, query: Self.items(query), headers: headers, body: body, version: version, options: options)
    }

    /// Creates an endpoint from path segments with the query written as a dictionary literal,
    /// its pairs sent in order; `body` is sent as JSON (a `Data` as raw bytes).
    public init(
        segments: [String],
        method: HTTPMethod = .get,
        query: KeyValuePairs<String, String?>,
        headers: HTTPHeaders = [:],
        body: (any Encodable & Sendable)? = nil,
        version: APIVersion? = nil,
        options: RequestOptions = RequestOptions()
    ) {
        self.init(
            segments: segments, method: method, query: Self.items(query), headers: headers, body: body, version: version, options: options)
    }

    /// Creates an endpoint from path segments that sends `body`, with the query written as a
    /// dictionary literal, its pairs sent in order.
    public init(
        segments: [String],
        method: HTTPMethod = .get,
        query: KeyValuePairs<String, String?>,
        headers: HTTPHeaders = [:],
        body: RequestBody,
        version: APIVersion? = nil,
        options: RequestOptions = RequestOptions()
    ) {
        self.init(
            segments: segments, method: method, query: Self.items(query), headers: headers, body: body, version: version, options: options)
    }

    private static func items(_ pairs: KeyValuePairs<String, String?>) -> [URLQueryItem] {
        pairs.map { URLQueryItem(name: $0.key, value: $0.value) }
    }
}
