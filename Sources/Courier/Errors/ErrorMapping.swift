import Foundation

extension NetworkError {
    /// The error a final response's status means, or `nil` for a 2xx.
    ///
    /// 401 → `unauthorized`, 403 → `forbidden`, 404 → `notFound`, 409 → `conflict` with the body,
    /// any other status → `serverError(status, message)`, where the message comes from a JSON
    /// error body `{"message": …, "code": …}` when there is one.
    public init?(response: HTTPResponse) {
        switch response.status {
        case 200..<300: return nil
        case 401: self = .unauthorized
        case 403: self = .forbidden
        case 404: self = .notFound
        case 409: self = .conflict(body: response.body)
        default: self = .serverError(status: response.status, message: ServerErrorBody.message(in: response.body))
        }
    }
}

/// The JSON error body servers commonly send (seed 002's `ErrorResponse`).
public struct ServerErrorBody: Decodable, Sendable, Equatable {
    /// A human-readable message.
    public let message: String
    /// A machine-readable code, if any.
    public let code: String?

    private enum CodingKeys: String, CodingKey { case message, code }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        message = try container.decode(String.self, forKey: .message)
        // Codes come as strings or numbers.
        if let text = try? container.decodeIfPresent(String.self, forKey: .code) {
            code = text
        } else if let number = try? container.decodeIfPresent(Int.self, forKey: .code) {
            code = String(number)
        } else {
            code = nil
        }
    }

    /// `message (code)` from a JSON error body, or `nil` if the body is not one.
    static func message(in body: Data) -> String? {
        let firstByte = body.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        guard firstByte == UInt8(ascii: "{"), let parsed = try? JSONDecoder().decode(ServerErrorBody.self, from: body) else {
            return nil
        }
        return parsed.code.map { "\(parsed.message) (\($0))" } ?? parsed.message
    }
}
