import Foundation

/// A GraphQL response body (`{data, errors, extensions}`), read in two passes: errors and
/// extensions first, so that data which fails to decode beside errors (a partial result whose
/// `null`s the app's types do not allow) still leaves the errors to report.
enum GraphQLEnvelope {
    private struct Head: Decodable {
        let errors: [GraphQLError]?
        let extensions: [String: JSONValue]?
    }

    private struct Payload<Data: Decodable>: Decodable {
        let data: Data?
    }

    private struct Whole<Data: Decodable>: Decodable {
        let data: Data?
        let errors: [GraphQLError]?
        let extensions: [String: JSONValue]?
    }

    private struct Refusal: Decodable {
        let data: JSONValue?
        let errors: [GraphQLError]?
    }

    /// Whether `body` is a GraphQL response whose errors say `UNAUTHENTICATED`: without data,
    /// or, when `evenWithData` (a query, which has no effect to repeat), beside partial data.
    static func refusesCredential(_ body: Foundation.Data, evenWithData: Bool) -> Bool {
        guard let refusal = try? JSONDecoder().decode(Refusal.self, from: body),
              evenWithData || refusal.data == nil || refusal.data == .null
        else {
            return false
        }
        return refusal.errors?.contains { $0.code == "UNAUTHENTICATED" } ?? false
    }

    /// Whether `body` looks like a GraphQL response (a JSON object with `data` or `errors`).
    static func errors(in body: Foundation.Data) -> [GraphQLError]? {
        (try? JSONDecoder().decode(Head.self, from: body))?.errors
    }

    /// The result `response` carries.
    /// - Throws: ``NetworkError/decodingError(underlying:bodyPrefix:)`` when the body is not a
    ///   GraphQL response, or its data does not decode and there are no errors to explain why.
    static func result<Data: Decodable & Sendable>(
        _ type: Data.Type, from response: HTTPResponse, decoder: JSONDecoder
    ) throws(NetworkError) -> GraphQLResult<Data> {
        // One pass when everything decodes (the usual case); two when it does not.
        if let whole = try? decoder.decode(Whole<Data>.self, from: response.body), whole.data != nil || whole.errors != nil {
            return GraphQLResult(data: whole.data, errors: whole.errors ?? [], extensions: whole.extensions, response: response)
        }
        let head: Head
        do {
            head = try decoder.decode(Head.self, from: response.body)
        } catch {
            throw .decodingError(underlying: error, bodyPrefix: String(decoding: response.body.prefix(256), as: UTF8.self))
        }
        let errors = head.errors ?? []
        let data: Data?
        do {
            data = try decoder.decode(Payload<Data>.self, from: response.body).data
        } catch {
            guard !errors.isEmpty else {
                throw .decodingError(underlying: error, bodyPrefix: String(decoding: response.body.prefix(256), as: UTF8.self))
            }
            data = nil
        }
        return GraphQLResult(data: data, errors: errors, extensions: head.extensions, response: response)
    }
}
