import Foundation

/// The fields of an `application/x-www-form-urlencoded` body (an HTML form's default), in order,
/// a name possibly repeated. Send it with ``RequestBody/form(_:)``.
///
/// ```swift
/// let body = RequestBody.form(["user": "ada", "note": "café & crème"])   // user=ada&note=caf%C3%A9+%26+cr%C3%A8me
/// ```
///
/// Encoded by the WHATWG URL Standard's application/x-www-form-urlencoded serializer, as
/// browsers and server form parsers expect: each name and value as UTF-8, every byte but ASCII
/// letters, digits and `*-._` percent-encoded (`%XX`, upper-case hex), a space as `+`, pairs
/// joined by `&`, each pair `name=value`.
public struct URLEncodedForm: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    /// One name and its value.
    public struct Field: Sendable, Equatable {
        /// The field's name.
        public var name: String
        /// The field's value.
        public var value: String

        /// A field named `name` with `value`.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields, in the order they are sent.
    public var fields: [Field]

    /// A form of `fields`, in order.
    public init(_ fields: [Field] = []) {
        self.fields = fields
    }

    /// A form of the literal's pairs, in the order written (a name may repeat).
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// Adds a field after the others.
    public mutating func append(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// The encoded body: `name=value` pairs joined by `&`.
    public var encoded: String {
        var text = ""
        for (index, field) in fields.enumerated() {
            if index > 0 { text.append("&") }
            text.append(Self.escape(field.name))
            text.append("=")
            text.append(Self.escape(field.value))
        }
        return text
    }

    /// `text` as the form serializer writes a name or a value: UTF-8 bytes, ASCII letters and
    /// digits and `*-._` as they are, a space as `+`, every other byte `%XX` (upper-case hex).
    public static func escape(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        URLBuilder.appendPercentEncoded(text, to: &bytes, allowing: isKept, spaceAsPlus: true)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The bytes the serializer writes as they are: ASCII letters and digits, `*-._`.
    private static func isKept(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }
}
