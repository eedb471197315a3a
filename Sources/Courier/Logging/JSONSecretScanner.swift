import Foundation

/// Finds the values of a JSON text's secret members and replaces them in the bytes as they
/// are, without parsing the text into objects and writing it back: the log shows the body as it
/// was sent (its member order, spacing and escapes), only the secrets replaced.
///
/// It checks the JSON grammar (RFC 8259) while it scans; a text that is not JSON, or nested
/// deeper than ``maxDepth``, gives `nil`, and the caller falls back to its rules for other
/// text.
struct JSONSecretScanner {
    /// Deeper nesting gives up rather than recursing further: a hostile body must not exhaust
    /// the stack.
    static let maxDepth = 256

    /// `text` with the value of every member whose name `redaction` holds secret replaced by
    /// its placeholder (as a JSON string), or `nil` if `text` is not JSON.
    static func redacting(_ text: Data, with redaction: Redaction) -> Data? {
        let bytes = [UInt8](text)
        var scanner = JSONSecretScanner(bytes: bytes, redaction: redaction)
        guard scanner.scanDocument() else { return nil }
        guard !scanner.secrets.isEmpty else { return text }
        let replacement = Array("\"\(Redaction.placeholder)\"".utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var copied = 0
        for secret in scanner.secrets {
            result += bytes[copied..<secret.lowerBound]
            result += replacement
            copied = secret.upperBound
        }
        result += bytes[copied...]
        return Data(result)
    }

    private let bytes: [UInt8]
    private let redaction: Redaction
    private var index = 0
    private var depth = 0
    /// The byte ranges of secret values, in order and never overlapping (a secret's own
    /// members are not looked into).
    private var secrets: [Range<Int>] = []
    /// Inside a secret value: nothing in it is recorded again.
    private var inSecret = false

    private init(bytes: [UInt8], redaction: Redaction) {
        self.bytes = bytes
        self.redaction = redaction
    }

    private mutating func scanDocument() -> Bool {
        skipSpace()
        guard scanValue() else { return false }
        skipSpace()
        return index == bytes.count
    }

    private mutating func scanValue() -> Bool {
        guard index < bytes.count else { return false }
        switch bytes[index] {
        case UInt8(ascii: "{"): return nested { $0.scanObject() }
        case UInt8(ascii: "["): return nested { $0.scanArray() }
        case UInt8(ascii: "\""): return scanString() != nil
        case UInt8(ascii: "t"): return scanLiteral("true")
        case UInt8(ascii: "f"): return scanLiteral("false")
        case UInt8(ascii: "n"): return scanLiteral("null")
        default: return scanNumber()
        }
    }

    private mutating func nested(_ body: (inout JSONSecretScanner) -> Bool) -> Bool {
        depth += 1
        defer { depth -= 1 }
        return depth <= Self.maxDepth && body(&self)
    }

    private mutating func scanObject() -> Bool {
        index += 1 // {
        skipSpace()
        if consume(UInt8(ascii: "}")) { return true }
        while true {
            skipSpace()
            guard let name = scanString() else { return false }
            skipSpace()
            guard consume(UInt8(ascii: ":")) else { return false }
            skipSpace()
            let start = index
            let secret = !inSecret && redaction.isSecret(parameter: decodedName(name))
            if secret { inSecret = true }
            guard scanValue() else { return false }
            if secret {
                inSecret = false
                secrets.append(start..<index)
            }
            skipSpace()
            if consume(UInt8(ascii: ",")) { continue }
            return consume(UInt8(ascii: "}"))
        }
    }

    private mutating func scanArray() -> Bool {
        index += 1 // [
        skipSpace()
        if consume(UInt8(ascii: "]")) { return true }
        while true {
            skipSpace()
            guard scanValue() else { return false }
            skipSpace()
            if consume(UInt8(ascii: ",")) { continue }
            return consume(UInt8(ascii: "]"))
        }
    }

    /// Scans a string; returns the range of its contents (between the quotes), or `nil`.
    private mutating func scanString() -> Range<Int>? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return start..<(index - 1)
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.count else { return nil }
                let escaped = bytes[index + 1]
                if escaped == UInt8(ascii: "u") {
                    guard index + 6 <= bytes.count, bytes[(index + 2)..<(index + 6)].allSatisfy(Self.isHexDigit) else { return nil }
                    index += 6
                } else {
                    guard Array("\"\\/bfnrt".utf8).contains(escaped) else { return nil }
                    index += 2
                }
            case 0..<0x20:
                return nil
            default:
                index += 1
            }
        }
        return nil
    }

    /// A member name as text: as it is when it has no escapes, else decoded.
    private func decodedName(_ range: Range<Int>) -> String {
        let raw = bytes[range]
        guard raw.contains(UInt8(ascii: "\\")) else { return String(decoding: raw, as: UTF8.self) }
        let quoted = Data(bytes[(range.lowerBound - 1)...range.upperBound])
        return (try? JSONSerialization.jsonObject(with: quoted, options: .fragmentsAllowed)) as? String
            ?? String(decoding: raw, as: UTF8.self)
    }

    private mutating func scanNumber() -> Bool {
        _ = consume(UInt8(ascii: "-"))
        if consume(UInt8(ascii: "0")) {
            // A leading zero stands alone.
        } else {
            guard scanDigits() else { return false }
        }
        if consume(UInt8(ascii: ".")), !scanDigits() { return false }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            guard scanDigits() else { return false }
        }
        return true
    }

    private mutating func scanDigits() -> Bool {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        return index > start
    }

    private mutating func scanLiteral(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let matches = literal.withUTF8Buffer { expected in bytes[index..<(index + count)].elementsEqual(expected) }
        if matches { index += count }
        return matches
    }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): index += 1
            default: return
            }
        }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
        default: false
        }
    }
}
