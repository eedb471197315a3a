import Foundation

extension NetworkError {
    /// The response's body decoded as the error body type the call or the client named
    /// (``RequestOptions/errorBody``, else ``APIClient/Configuration/errorBody``), when the
    /// error came from a response and its body decoded; `nil` otherwise. Decoded once, when the
    /// status turned into this error: a success never pays for it.
    public var errorBody: (any Sendable)? { response?.errorContext?.errorBody }

    /// The response's body as `Body`: the ``errorBody`` when it is one, else decoded now with
    /// `decoder`. `nil` when the error has no response, its body is empty, or it does not
    /// decode as `Body`; the error itself stays what it is.
    ///
    /// ```swift
    /// catch let error as NetworkError {
    ///     if let problem = error.decodedBody(as: ProblemDetails.self) { show(problem.detail) }
    /// }
    /// ```
    public func decodedBody<Body: Decodable>(as type: Body.Type = Body.self, decoder: JSONDecoder = JSONDecoder()) -> Body? {
        if let body = errorBody as? Body { return body }
        guard let body = response?.body, !body.isEmpty else { return nil }
        return try? decoder.decode(Body.self, from: body)
    }

    /// The error `response`'s status means (`nil` for a 2xx), answering `request` (its method
    /// and URL kept for the description), with its body decoded as `bodyType` with `decoder`
    /// when a type is given. A body that does not decode leaves ``errorBody`` `nil`.
    init?(
        response: borrowing HTTPResponse, answering request: HTTPRequest, errorBody bodyType: (any (Decodable & Sendable).Type)?,
        decoder: JSONDecoder
    ) {
        guard !response.isSuccess else { return nil }
        var kept = copy response
        let decoded = bodyType.flatMap { Self.decode($0, from: kept.body, with: decoder) }
        kept.errorContext = ResponseContext(method: request.method, url: request.url, errorBody: decoded)
        self.init(response: kept)
    }

    private static func decode<Body: Decodable & Sendable>(_ type: Body.Type, from body: Data, with decoder: JSONDecoder) -> (any Sendable)? {
        guard !body.isEmpty else { return nil }
        return try? decoder.decode(Body.self, from: body)
    }
}
