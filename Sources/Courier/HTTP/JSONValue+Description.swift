extension JSONValue: CustomStringConvertible, CustomDebugStringConvertible {
    /// The value as compact JSON, object members sorted by name so the text is stable:
    /// `{"items":["a",2],"ok":true}`. Whole numbers print without a fraction (`2`, not `2.0`);
    /// a number JSON cannot hold prints as `NaN`, `Infinity` or `-Infinity`. Nothing is
    /// redacted: it prints the data it holds.
    public var description: String {
        var text = ""
        write(to: &text)
        return text
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    private func write(to text: inout String) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .number(let value): text += Self.json(value)
        case .string(let value): Self.writeString(value, to: &text)
        case .array(let values):
            text += "["
            for (index, value) in values.enumerated() {
                if index > 0 { text += "," }
                value.write(to: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (index, name) in members.keys.sorted().enumerated() {
                if index > 0 { text += "," }
                Self.writeString(name, to: &text)
                text += ":"
                members[name]?.write(to: &text)
            }
            text += "}"
        }
    }

    private static func json(_ number: Double) -> String {
        if number.isNaN { return "NaN" }
        if number.isInfinite { return number < 0 ? "-Infinity" : "Infinity" }
        // Whole numbers up to 2^53 are exact in a Double: print them as integers.
        if number == number.rounded(), abs(number) <= 9_007_199_254_740_992 { return String(Int64(number)) }
        return String(number)
    }

    private static func writeString(_ string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\u{08}": text += "\\b"
            case "\u{0C}": text += "\\f"
            case "\u{00}"..."\u{1F}":
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
