import Foundation

extension Response {
    /// `response`'s body decoded as `Value`: JSON with `decoder`; `String` as text in its
    /// charset (UTF-8 by default); `Data` as it is; ``EmptyResponse`` as nothing. A status
    /// other than 2xx (a 3xx that was not followed) has nothing to decode and throws its error.
    ///
    /// Inlinable, so that it is specialised for `Value` where it is called.
    @inlinable
    static func decoding(_ response: HTTPResponse, with decoder: JSONDecoder) throws(NetworkError) -> Response<Value> where Value: Decodable {
        if let error = NetworkError(response: response) { throw error }
        if Value.self == EmptyResponse.self, let empty = EmptyResponse() as? Value {
            return Response(value: empty, response: response)
        }
        // Text and bytes are read without a decoder.
        if Value.self == String.self, let text = try response.text() as? Value {
            return Response(value: text, response: response)
        }
        if Value.self == Data.self, let body = response.body as? Value {
            return Response(value: body, response: response)
        }
        do {
            return Response(value: try decoder.decode(Value.self, from: response.body), response: response)
        } catch {
            throw .decodingError(underlying: error, bodyPrefix: HTTPResponse.prefix(of: response.body))
        }
    }
}
