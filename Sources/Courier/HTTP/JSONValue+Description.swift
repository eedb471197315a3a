extension JSONValue: CustomStringConvertible, CustomDebugStringConvertible {
    /// The value as compact JSON, object members sorted by name so the text is stable:
    /// `{"items":["a",2],"ok":true}`. Whole numbers print without a fraction (`2`, not `2.0`);
    /// a number JSON cannot hold prints as `NaN`, `Infinity` or `-Infinity`. The value of a
    /// member whose name is secret under the default ``Redaction`` (`password`, `token`,
    /// `client_secret`, …), at any depth, prints as `"<redacted>"`: a `print` in a service's
    /// log must not leak it. ``debugDescription`` prints everything.
    public var description: String {
        var text = ""
        write(to: &text, redaction: .standard)
        return text
    }

    /// The value as ``description`` prints it but with nothing redacted: the data it holds,
    /// for local debugging (`String(reflecting:)`, `debugPrint`).
    public var debugDescription: String { canonicalText }

    /// Compact JSON, object members sorted by name, whole numbers without a fraction, nothing
    /// redacted: equal values give equal text (GraphQL's cache keys use it).
    var canonicalText: String {
        var text = ""
        write(to: &text, redaction: nil)
        return text
    }

    private func write(to text: inout String, redaction: Redaction?) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .number(let value): text += Self.json(value)
        case .string(let value): Self.writeString(value, to: &text)
        case .array(let values):
            text += "["
            for (index, value) in values.enumerated() {
                if index > 0 { text += "," }
                value.write(to: &text, redaction: redaction)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (index, name) in members.keys.sorted().enumerated() {
                if index > 0 { text += "," }
                Self.writeString(name, to: &text)
                text += ":"
                if let redaction, redaction.isSecret(parameter: name) {
                    Self.writeString(Redaction.placeholder, to: &text)
                } else {
                    members[name]?.write(to: &text, redaction: redaction)
                }
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
