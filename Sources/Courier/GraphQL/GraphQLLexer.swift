/// The tokens of a GraphQL document (the spec's lexical grammar): punctuators, names, numbers
/// and strings, with whitespace, commas, comments and a byte order mark skipped. Works on the
/// document's UTF-8 bytes; names and punctuators are ASCII, strings may hold any text.
struct GraphQLLexer {
    enum Kind: Equatable {
        case punctuator(String)
        case name(String)
        case int(String)
        case float(String)
        /// A string's value, escapes resolved (block strings with their indentation removed).
        case string(String)
        case end
    }

    struct Token: Equatable {
        let kind: Kind
        let line: Int
        let column: Int
    }

    private let bytes: [UInt8]
    private var offset = 0
    private var line = 1
    /// A place on `line` whose column is known, so that each column is counted from the last
    /// one (columns count characters: UTF-8 continuation bytes are not counted).
    private var columnMark = (offset: 0, column: 1)

    init(_ document: String) {
        bytes = Array(document.utf8)
    }

    /// The next token; `.end` at the end of the document (and from then on).
    mutating func next() throws(GraphQLSyntaxError) -> Token {
        skipIgnored()
        let (line, column) = (self.line, self.column(at: offset))
        guard offset < bytes.count else { return Token(kind: .end, line: line, column: column) }
        let byte = bytes[offset]
        let kind: Kind
        switch byte {
        case UInt8(ascii: "."):
            guard offset + 2 < bytes.count, bytes[offset + 1] == byte, bytes[offset + 2] == byte else {
                throw error("expected \"...\"", line, column)
            }
            offset += 3
            kind = .punctuator("...")
        case _ where Self.punctuators.contains(byte):
            offset += 1
            kind = .punctuator(String(UnicodeScalar(byte)))
        case _ where Self.isNameStart(byte):
            let start = offset
            while offset < bytes.count, Self.isNameStart(bytes[offset]) || Self.isDigit(bytes[offset]) { offset += 1 }
            kind = .name(String(decoding: bytes[start..<offset], as: UTF8.self))
        case _ where byte == UInt8(ascii: "-") || Self.isDigit(byte):
            kind = try number(line, column)
        case UInt8(ascii: "\""):
            if offset + 2 < bytes.count, bytes[offset + 1] == byte, bytes[offset + 2] == byte {
                kind = try blockString(line, column)
            } else {
                kind = try string(line, column)
            }
        default:
            throw error("unexpected character \(Self.describe(at: offset, in: bytes))", line, column)
        }
        return Token(kind: kind, line: line, column: column)
    }

    private static let punctuators = Set("!$&():=@[]{}|".utf8)

    private static func isNameStart(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "_") || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// Whitespace, line terminators, commas, comments and a byte order mark.
    private mutating func skipIgnored() {
        while offset < bytes.count {
            switch bytes[offset] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: ","):
                offset += 1
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                newLine()
            case UInt8(ascii: "#"):
                while offset < bytes.count, bytes[offset] != UInt8(ascii: "\n"), bytes[offset] != UInt8(ascii: "\r") { offset += 1 }
            case 0xEF where offset + 2 < bytes.count && bytes[offset + 1] == 0xBB && bytes[offset + 2] == 0xBF:
                offset += 3
            default:
                return
            }
        }
    }

    /// Steps over a line terminator (`\r\n` counts once).
    private mutating func newLine() {
        if bytes[offset] == UInt8(ascii: "\r"), offset + 1 < bytes.count, bytes[offset + 1] == UInt8(ascii: "\n") { offset += 1 }
        offset += 1
        line += 1
        columnMark = (offset, 1)
    }

    /// The column of `offset`, on the current line at or after the mark; moves the mark there.
    private mutating func column(at offset: Int) -> Int {
        let column = columnMark.column + bytes[columnMark.offset..<offset].lazy.filter { $0 & 0xC0 != 0x80 }.count
        columnMark = (offset, column)
        return column
    }

    private func error(_ message: String, _ line: Int, _ column: Int) -> GraphQLSyntaxError {
        GraphQLSyntaxError(message: message, line: line, column: column)
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, not followed by a name start, a digit or `.`.
    private mutating func number(_ line: Int, _ column: Int) throws(GraphQLSyntaxError) -> Kind {
        let start = offset
        if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        func digits() -> Int {
            let from = offset
            while offset < bytes.count, Self.isDigit(bytes[offset]) { offset += 1 }
            return offset - from
        }
        let integerStart = offset
        guard digits() > 0 else { throw error("a number needs a digit after \"-\"", line, column) }
        if bytes[integerStart] == UInt8(ascii: "0"), offset - integerStart > 1 {
            throw error("a number does not start with 0", line, column)
        }
        var isFloat = false
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            guard digits() > 0 else { throw error("a fraction needs a digit after \".\"", line, column) }
            isFloat = true
        }
        if offset < bytes.count, bytes[offset] | 0x20 == UInt8(ascii: "e") {
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            guard digits() > 0 else { throw error("an exponent needs a digit", line, column) }
            isFloat = true
        }
        if offset < bytes.count, Self.isNameStart(bytes[offset]) || bytes[offset] == UInt8(ascii: ".") {
            throw error("unexpected \(Self.describe(at: offset, in: bytes)) after a number", line, column)
        }
        let text = String(decoding: bytes[start..<offset], as: UTF8.self)
        return isFloat ? .float(text) : .int(text)
    }

    /// A `"…"` string: escapes resolved, no line terminator inside.
    private mutating func string(_ line: Int, _ column: Int) throws(GraphQLSyntaxError) -> Kind {
        offset += 1
        var value: [UInt8] = []
        while offset < bytes.count {
            let byte = bytes[offset]
            switch byte {
            case UInt8(ascii: "\""):
                offset += 1
                return .string(String(decoding: value, as: UTF8.self))
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                throw error("a string ends at the end of its line (use a block string for several)", line, column)
            case UInt8(ascii: "\\"):
                guard offset + 1 < bytes.count else { throw error("a string is not closed", line, column) }
                let escaped = bytes[offset + 1]
                offset += 2
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): value.append(escaped)
                case UInt8(ascii: "b"): value.append(0x08)
                case UInt8(ascii: "f"): value.append(0x0C)
                case UInt8(ascii: "n"): value.append(0x0A)
                case UInt8(ascii: "r"): value.append(0x0D)
                case UInt8(ascii: "t"): value.append(0x09)
                case UInt8(ascii: "u"):
                    value.append(contentsOf: try unicodeEscape(line, column))
                default:
                    throw error("unknown escape \\\(Self.describe(at: offset - 1, in: bytes)) in a string", line, column)
                }
            default:
                value.append(byte)
                offset += 1
            }
        }
        throw error("a string is not closed", line, column)
    }

    /// The UTF-8 of a `\uXXXX` escape (a surrogate pair as two escapes) or a `\u{…}` one, after
    /// its `\u`.
    private mutating func unicodeEscape(_ line: Int, _ column: Int) throws(GraphQLSyntaxError) -> [UInt8] {
        func isHex(_ byte: UInt8) -> Bool { Self.isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f")) }
        func hex(_ count: Int) -> UInt32? {
            guard count > 0, offset + count <= bytes.count, bytes[offset..<(offset + count)].allSatisfy(isHex) else { return nil }
            defer { offset += count }
            return UInt32(String(decoding: bytes[offset..<(offset + count)], as: UTF8.self), radix: 16)
        }
        var scalar: UInt32
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "{") {
            let digits = bytes[(offset + 1)...].prefix(while: isHex).count
            offset += 1
            guard digits <= 8, let value = hex(digits), offset < bytes.count, bytes[offset] == UInt8(ascii: "}") else {
                throw error("\\u{…} needs hex digits and a closing brace", line, column)
            }
            offset += 1
            scalar = value
        } else {
            guard let value = hex(4) else { throw error("\\u needs four hex digits", line, column) }
            scalar = value
            if (0xD800...0xDBFF).contains(scalar), offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u") {
                offset += 2
                guard let low = hex(4), (0xDC00...0xDFFF).contains(low) else { throw error("a lone surrogate in \\u escapes", line, column) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw error("\\u escape of a surrogate alone or past U+10FFFF", line, column) }
        return Array(String(Character(unicode)).utf8)
    }

    /// A `"""…"""` block string: raw but for `\"""`, its common indentation and blank first and
    /// last lines removed (the spec's BlockStringValue).
    private mutating func blockString(_ line: Int, _ column: Int) throws(GraphQLSyntaxError) -> Kind {
        offset += 3
        var raw: [UInt8] = []
        while offset < bytes.count {
            if bytes[offset] == UInt8(ascii: "\""), offset + 2 < bytes.count, bytes[offset + 1] == UInt8(ascii: "\""), bytes[offset + 2] == UInt8(ascii: "\"") {
                offset += 3
                return .string(Self.blockStringValue(String(decoding: raw, as: UTF8.self)))
            }
            if bytes[offset] == UInt8(ascii: "\\"), offset + 3 < bytes.count, bytes[(offset + 1)...(offset + 3)].allSatisfy({ $0 == UInt8(ascii: "\"") }) {
                raw.append(contentsOf: "\"\"\"".utf8)
                offset += 4
            } else if bytes[offset] == UInt8(ascii: "\n") || bytes[offset] == UInt8(ascii: "\r") {
                raw.append(UInt8(ascii: "\n"))
                newLine()
            } else {
                raw.append(bytes[offset])
                offset += 1
            }
        }
        throw error("a block string is not closed", line, column)
    }

    private static func blockStringValue(_ raw: String) -> String {
        var lines = raw.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func indentation(_ line: String) -> Int { line.prefix { $0 == " " || $0 == "\t" }.count }
        let common = lines.dropFirst().filter { indentation($0) < $0.count }.map(indentation).min() ?? 0
        for index in lines.indices.dropFirst() { lines[index] = String(lines[index].dropFirst(min(common, lines[index].count))) }
        while let first = lines.first, first.allSatisfy({ $0 == " " || $0 == "\t" }) { lines.removeFirst() }
        while let last = lines.last, last.allSatisfy({ $0 == " " || $0 == "\t" }) { lines.removeLast() }
        return lines.joined(separator: "\n")
    }

    /// The character at `offset`, quoted, for an error message.
    private static func describe(at offset: Int, in bytes: [UInt8]) -> String {
        var end = offset + 1
        while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
        let text = String(decoding: bytes[offset..<min(end, bytes.count)], as: UTF8.self)
        return text.unicodeScalars.allSatisfy({ $0.properties.isWhitespace || $0.value < 0x20 })
            ? "U+\(String(text.unicodeScalars.first?.value ?? 0, radix: 16, uppercase: true))" : "\"\(text)\""
    }
}
