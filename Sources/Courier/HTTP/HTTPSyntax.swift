import Foundation

/// Byte-level helpers for HTTP syntax shared by the HTTP value types. Internal.
enum HTTPSyntax {
    /// Whether `byte` is an RFC 9110 `tchar`: ALPHA, DIGIT or one of `!#$%&'*+-.^_|~` and the backtick.
    @inline(__always)
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"),
             UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// Whether `value` is a non-empty RFC 9110 token (the syntax of methods and field names).
    static func isToken(_ value: String) -> Bool {
        value.withUTF8Bytes(isToken)
    }

    /// ``isToken(_:)`` for UTF-8 bytes, one pass with integer indices.
    static func isToken(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !bytes.isEmpty else { return false }
        for index in 0..<bytes.count where !isTokenByte(bytes[index]) { return false }
        return true
    }

    /// Whether `byte` may appear in a URI scheme (RFC 3986: ALPHA, DIGIT, `+`, `-`, `.`).
    static func isSchemeByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }

    /// `byte` with `A`–`Z` mapped to `a`–`z`.
    @inline(__always)
    static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// Whether `a` and `b` are equal ignoring the case of ASCII letters (other bytes must match
    /// exactly). Walks the UTF-8 views; allocates nothing.
    static func equalsIgnoringASCIICase(_ a: String, _ b: String) -> Bool {
        let a = a.utf8, b = b.utf8
        guard a.count == b.count else { return false }
        for (x, y) in zip(a, b) where x != y {
            guard asciiLowercased(x) == asciiLowercased(y) else { return false }
        }
        return true
    }

    /// `text`, at most 64 characters of it, quoted and with control characters escaped (so a
    /// CR/LF in it cannot forge a log line), for error messages. Only used on error paths.
    static func quotedForMessage(_ text: String) -> String {
        let limit = 64
        guard text.count > limit else { return text.debugDescription }
        return String(text.prefix(limit)).debugDescription + "…"
    }

    /// A readable name for a byte found where it is not allowed, e.g. `CR (0x0D)`.
    static func describe(byte: UInt8) -> String {
        let hex = "0x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
        switch byte {
        case 0x0D: return "CR (\(hex))"
        case 0x0A: return "LF (\(hex))"
        case 0x00: return "NUL (\(hex))"
        case 0x20: return "a space (\(hex))"
        case 0x21...0x7E: return "\"\(Character(Unicode.Scalar(byte)))\" (\(hex))"
        case 0x80...: return "a non-ASCII byte (\(hex))"
        default: return "a control character (\(hex))"
        }
    }

    /// Checks that `url` is an http or https URL with a host; `name` says which URL in the error.
    static func requireHTTPURL(_ url: URL, named name: String) throws(NetworkError) {
        // The usual case in one pass over the text; the URL's own parser explains a refusal.
        if let origin = HTTPOrigin(url), origin.isHTTP { return }
        guard let scheme = url.scheme, equalsIgnoringASCIICase(scheme, "http") || equalsIgnoringASCIICase(scheme, "https") else {
            let shown = url.scheme.map { "scheme \(quotedForMessage($0))" } ?? "no scheme"
            throw .invalidURL("\(name) has \(shown); only http and https are supported")
        }
        guard let host = url.host, !host.isEmpty else {
            throw .invalidURL("\(name) has no host")
        }
    }
}
