import Foundation

/// One challenge of a `WWW-Authenticate` field (RFC 9110 §11.6.1): its scheme and either its
/// parameters or a token68. A field may hold several challenges, each with parameters, so the
/// parser reads a name followed by `=` as a parameter and any other name as the next scheme.
struct AuthenticationChallenge: Sendable, Equatable {
    /// As written (compare it ignoring case), e.g. `Digest`.
    let scheme: String
    /// The parameters in order, names lowercased, quoted values unquoted.
    let parameters: [(name: String, value: String)]
    /// The token68 form (`Negotiate abc==`), when the challenge has one instead of parameters.
    let token68: String?

    init(scheme: String, parameters: [(name: String, value: String)] = [], token68: String? = nil) {
        self.scheme = scheme
        self.parameters = parameters
        self.token68 = token68
    }

    /// The first parameter named `name` (lowercase), as the RFC forbids repeating one.
    subscript(name: String) -> String? {
        parameters.first { $0.name == name }?.value
    }

    /// Whether the scheme is `scheme`, ignoring case.
    func isScheme(_ scheme: String) -> Bool {
        HTTPSyntax.equalsIgnoringASCIICase(self.scheme, scheme)
    }

    static func == (lhs: AuthenticationChallenge, rhs: AuthenticationChallenge) -> Bool {
        lhs.scheme == rhs.scheme && lhs.token68 == rhs.token68
            && lhs.parameters.map(\.name) == rhs.parameters.map(\.name) && lhs.parameters.map(\.value) == rhs.parameters.map(\.value)
    }

    /// The challenges of every `WWW-Authenticate` field of `headers` that parses, in order: a
    /// field that breaks the syntax (another scheme's, often) is skipped, so that it cannot hide
    /// the challenges of the others.
    static func challenges(in headers: HTTPHeaders) -> [AuthenticationChallenge] {
        headers.values(for: "WWW-Authenticate").flatMap { (try? parse($0)) ?? [] }
    }

    /// The challenges of one `WWW-Authenticate` field value.
    /// - Throws: ``NetworkError/invalidResponse(_:)`` for an unterminated quoted string, a
    ///   parameter without a value, or text where a `,` should be.
    static func parse(_ value: String) throws(NetworkError) -> [AuthenticationChallenge] {
        var reader = Reader(Array(value.utf8))
        var challenges: [AuthenticationChallenge] = []
        while true {
            reader.skipListSeparators()
            if reader.isAtEnd { return challenges }
            let scheme = reader.token()
            guard !scheme.isEmpty else { throw reader.malformed("expected an authentication scheme") }
            challenges.append(try reader.rest(of: scheme))
        }
    }
}

extension AuthenticationChallenge {
    /// A cursor over a `WWW-Authenticate` value's bytes.
    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var isAtEnd: Bool { index >= bytes.count }
        private var current: UInt8? { isAtEnd ? nil : bytes[index] }

        mutating func skipSpaces() {
            while let byte = current, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { index += 1 }
        }

        mutating func skipListSeparators() {
            while let byte = current, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: ",") { index += 1 }
        }

        mutating func token() -> String {
            let start = index
            while let byte = current, HTTPSyntax.isTokenByte(byte) { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        /// The parameters (or token68) after `scheme`, up to the next challenge or the end.
        mutating func rest(of scheme: String) throws(NetworkError) -> AuthenticationChallenge {
            skipSpaces()
            if let token68 = token68() { return AuthenticationChallenge(scheme: scheme, token68: token68) }
            var parameters: [(name: String, value: String)] = []
            while true {
                skipListSeparators()
                if isAtEnd { break }
                let start = index
                let name = token()
                guard !name.isEmpty else { throw malformed("expected a parameter name") }
                skipSpaces()
                // A name without "=" starts the next challenge.
                guard current == UInt8(ascii: "=") else {
                    index = start
                    break
                }
                index += 1
                skipSpaces()
                let value: String
                if current == UInt8(ascii: "\"") {
                    value = try quotedString(parameter: name)
                } else {
                    value = token()
                    guard !value.isEmpty else { throw malformed("parameter \(HTTPSyntax.quotedForMessage(name)) has no value") }
                }
                parameters.append((name.lowercased(), value))
                skipSpaces()
                guard isAtEnd || current == UInt8(ascii: ",") else {
                    throw malformed("expected ',' after parameter \(HTTPSyntax.quotedForMessage(name))")
                }
            }
            return AuthenticationChallenge(scheme: scheme, parameters: parameters)
        }

        /// A token68 that is the whole rest of this challenge (`abc==` then `,` or the end); `nil`
        /// (and nothing read) for anything else, such as `realm="x"`.
        private mutating func token68() -> String? {
            let start = index
            while let byte = current, Self.isToken68Byte(byte) { index += 1 }
            guard index > start else { return nil }
            while current == UInt8(ascii: "=") { index += 1 }
            let end = index
            skipSpaces()
            if isAtEnd || current == UInt8(ascii: ",") { return String(decoding: bytes[start..<end], as: UTF8.self) }
            index = start
            return nil
        }

        /// The quoted string at the cursor, unescaped.
        private mutating func quotedString(parameter: String) throws(NetworkError) -> String {
            index += 1
            var value: [UInt8] = []
            while let byte = current {
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: value, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard let escaped = current else { break }
                    value.append(escaped)
                    index += 1
                default:
                    value.append(byte)
                }
            }
            throw malformed("the quoted value of parameter \(HTTPSyntax.quotedForMessage(parameter)) is not terminated")
        }

        func malformed(_ problem: String) -> NetworkError {
            .invalidResponse("malformed WWW-Authenticate field: \(problem) at byte \(index)")
        }

        private static func isToken68Byte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                true
            default:
                false
            }
        }
    }
}
