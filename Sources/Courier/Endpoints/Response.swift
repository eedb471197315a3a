/// A decoded response: the value, and the HTTP response it came from (status, headers, the
/// raw body), so a caller of ``APIClient/send(_:)`` can read headers such as `ETag` or a
/// pagination `Link` without a second call.
public struct Response<Value> {
    /// The decoded body.
    public var value: Value
    /// The final response as received (after redirects and retries).
    public var response: HTTPResponse

    /// Creates a response.
    public init(value: Value, response: HTTPResponse) {
        self.value = value
        self.response = response
    }

    /// The status code, e.g. `200`.
    public var status: Int { response.status }
    /// The response's header fields.
    public var headers: HTTPHeaders { response.headers }
    /// The request's id (as in ``APIClient/events(buffer:)``), attempts, redirects and duration;
    /// `nil` when the cache answered without asking the network.
    public var metrics: RequestMetrics? { response.metrics }
}

extension Response: Sendable where Value: Sendable {}
