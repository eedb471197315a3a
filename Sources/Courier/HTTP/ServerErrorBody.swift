import Foundation

/// The JSON error body many APIs send: `{"message": …, "code": …}`.
struct ServerErrorBody: Decodable, Sendable, Equatable {
    /// A human-readable message.
    let message: String
    /// A machine-readable code, if any (numbers are written out as text).
    let code: String?

    private enum CodingKeys: String, CodingKey { case message, code }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        message = try container.decode(String.self, forKey: .message)
        if let text = try? container.decodeIfPresent(String.self, forKey: .code) {
            code = text
        } else if let number = try? container.decodeIfPresent(Int.self, forKey: .code) {
            code = String(number)
        } else {
            code = nil
        }
    }

    /// The error body in `body`, or `nil` if it is not a JSON object with a `message`.
    init?(_ body: Data) {
        let firstByte = body.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        guard firstByte == UInt8(ascii: "{"), let parsed = try? JSONDecoder().decode(Self.self, from: body) else {
            return nil
        }
        self = parsed
    }
}
