import Foundation

/// Reads the expiry of a JSON Web Token: the `exp` claim of its payload (the second of three
/// base64url parts). The signature is not verified, and nothing else is read.
enum JWT {
    /// The token's `exp` as a date.
    /// - Throws: ``NetworkError/invalidToken(_:)`` saying what is wrong (never quoting the token).
    static func expiry(of token: String) throws(NetworkError) -> Date {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .invalidToken("a JWT has three dot-separated parts, this has \(parts.count)") }
        guard let payload = decodeBase64URL(parts[1]) else { throw .invalidToken("the JWT payload is not base64url") }
        guard let object = try? JSONSerialization.jsonObject(with: payload) as? [String: Any] else {
            throw .invalidToken("the JWT payload is not a JSON object")
        }
        guard let exp = object["exp"] as? NSNumber, !(exp is Bool), exp.doubleValue.isFinite else {
            throw .invalidToken("the JWT payload has no numeric exp claim")
        }
        return Date(timeIntervalSince1970: exp.doubleValue)
    }

    /// Decodes base64url (RFC 4648 §5), with or without padding.
    static func decodeBase64URL(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !base64.contains("=") else { return nil }
        if base64.count % 4 == 1 { return nil }
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
