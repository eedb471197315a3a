/// The header fields of a request or a response, in order.
///
/// Fields keep the order they were added in, and a name may appear more than once (several
/// `Set-Cookie` or `Accept` fields).
///
/// What arrives in a response depends on the transport: ``CurlTransport``, `InMemoryTransport`,
/// `ScriptedTransport` and any transport that builds `HTTPHeaders` field by field keep repeated
/// fields apart; ``URLSessionTransport`` cannot on Linux, where FoundationNetworking hands
/// over a dictionary with repeated fields already joined by ", " (two `Set-Cookie` fields
/// arrive as one value, which cannot be split safely because an `Expires` date contains a
/// comma). Request fields are sent as they are, repeated ones included. Every lookup compares names ASCII-case-insensitively, as
/// RFC 9110 §5.1 requires, without lowercasing or copying strings; the names themselves are
/// stored exactly as given.
///
/// Nothing is checked when fields are added: call ``validate()`` (``HTTPRequest/validate()``
/// does, and transports call that before sending) to reject a name that is not a token or a
/// value containing CR, LF or NUL — the characters of header injection.
///
/// ```swift
/// var headers: HTTPHeaders = ["Accept": "application/json"]
/// headers.add(name: "Accept", value: "text/plain")
/// headers["authorization"] = "Bearer …"      // replaces every Authorization field
/// headers.values(for: "ACCEPT")              // ["application/json", "text/plain"]
/// ```
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header field: a name and its value, both as written on the wire.
    ///
    /// Two fields are equal when their names are equal ignoring ASCII case and their values are
    /// exactly equal (values are case-sensitive; names are not).
    public struct Field: Sendable, Hashable {
        /// The field name, e.g. `"Content-Type"`, with the case it was given in.
        public var name: String
        /// The field value, e.g. `"application/json"`.
        public var value: String

        /// Creates a field. Nothing is validated here; see ``HTTPHeaders/validate()``.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }

        /// Names compare ignoring ASCII case; values compare exactly.
        public static func == (lhs: Field, rhs: Field) -> Bool {
            lhs.value == rhs.value && HTTPSyntax.equalsIgnoringASCIICase(lhs.name, rhs.name)
        }

        /// Hashes the name ASCII-lowercased (byte by byte, without allocating) and the value,
        /// consistently with ``==(_:_:)``.
        public func hash(into hasher: inout Hasher) {
            for byte in name.utf8 { hasher.combine(HTTPSyntax.asciiLowercased(byte)) }
            hasher.combine(0xFF as UInt8) // terminator: never a byte of valid UTF-8
            hasher.combine(value)
        }
    }

    /// No fields.
    public init() {
        fields = []
    }

    /// The given `(name, value)` pairs, in order; repeated names are kept as separate fields.
    public init(_ fields: [(String, String)]) {
        self.fields = fields.map { Field(name: $0.0, value: $0.1) }
    }

    /// The literal's pairs, in the order written; repeated names are kept as separate fields.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The value of the first field named `name` (ignoring case), or nil if there is none.
    ///
    /// Setting a value replaces every field of that name by a single one, placed where the
    /// first of them was (or appended if there was none); setting nil removes them all.
    public subscript(name: String) -> String? {
        get { fields.first { HTTPSyntax.equalsIgnoringASCIICase($0.name, name) }?.value }
        set {
            if let newValue { replaceOrAdd(name: name, value: newValue) } else { remove(name: name) }
        }
    }

    /// The values of every field named `name` (ignoring case), in order; empty if none.
    public func values(for name: String) -> [String] {
        fields.compactMap { HTTPSyntax.equalsIgnoringASCIICase($0.name, name) ? $0.value : nil }
    }

    /// Appends a field, keeping any existing field of the same name (for headers that may be
    /// repeated, such as `Accept` or `Cookie`).
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Makes `name: value` the only field of that name: the first existing field of that name
    /// (ignoring case) takes the new name and value in place and the others are removed; if
    /// there was none, the field is appended.
    public mutating func replaceOrAdd(name: String, value: String) {
        guard let first = fields.firstIndex(where: { HTTPSyntax.equalsIgnoringASCIICase($0.name, name) }) else {
            fields.append(Field(name: name, value: value))
            return
        }
        fields[first] = Field(name: name, value: value)
        let rest = fields.index(after: first)
        fields[rest...].removeAll { HTTPSyntax.equalsIgnoringASCIICase($0.name, name) }
    }

    /// Removes every field named `name` (ignoring case). Does nothing if there is none.
    public mutating func remove(name: String) {
        fields.removeAll { HTTPSyntax.equalsIgnoringASCIICase($0.name, name) }
    }

    /// Whether at least one field is named `name` (ignoring case).
    public func contains(_ name: String) -> Bool {
        fields.contains { HTTPSyntax.equalsIgnoringASCIICase($0.name, name) }
    }

    /// `other`'s fields in storage of their own, with room for `extra` more (the fields the
    /// client and the auth step add), so adding them does not grow it again.
    init(copying other: HTTPHeaders, extra: Int) {
        fields = []
        fields.reserveCapacity(other.count + extra)
        fields.append(contentsOf: other.fields)
    }

    /// No fields, with room for `capacity` (a transport reading a response head).
    init(reservingCapacity capacity: Int) {
        fields = []
        fields.reserveCapacity(capacity)
    }

    /// The last field added, if any (a transport appends a folded continuation line to it).
    var lastField: Field? { fields.last }

    /// Replaces the last field's value; there must be one.
    mutating func replaceLast(value: String) {
        fields[fields.count - 1].value = value
    }

    /// The number of fields, counting each repetition of a name.
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// Iterates over the fields in order.
    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    /// The number of fields; lets `Array(headers)` allocate once.
    public var underestimatedCount: Int { fields.count }

    /// Checks that the fields can be written on the wire without changing the message's
    /// structure, and throws ``NetworkError/invalidRequest(_:)`` for the first one that cannot:
    ///
    /// - a name must be a non-empty RFC 9110 token: ASCII letters, digits and
    ///   `!#$%&'*+-.^_|~` and the backtick — so no space, colon, CR, LF or NUL;
    /// - a value must not contain CR, LF or NUL, which would end the field (or the header
    ///   block) early and let the rest be read as another header or a body — header injection.
    ///
    /// The error message names the header (escaped, so a CR/LF in a bad name cannot split a log
    /// line) but never includes the value, which may be a credential.
    ///
    /// This runs for every request: it scans UTF-8 bytes and allocates nothing when the fields
    /// are valid.
    public func validate() throws(NetworkError) {
        for field in fields where !Self.isValid(field) {
            try Self.explainInvalid(field)
        }
    }

    /// The fast check, on the UTF-8 bytes in place with integer indices: a valid field
    /// allocates nothing.
    private static func isValid(_ field: Field) -> Bool {
        HTTPSyntax.isToken(field.name) && field.value.withUTF8Bytes(isFieldValue)
    }

    private static func isFieldValue(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for index in 0..<bytes.count {
            // One comparison for each byte but the control characters up to CR.
            let byte = bytes[index]
            if byte <= 0x0D, byte == 0x0D || byte == 0x0A || byte == 0x00 { return false }
        }
        return true
    }

    /// Throws the error that says what is wrong with an invalid `field`.
    private static func explainInvalid(_ field: Field) throws(NetworkError) {
        if field.name.utf8.isEmpty {
            throw .invalidRequest("header name is empty")
        }
        if let bad = field.name.utf8.first(where: { !HTTPSyntax.isTokenByte($0) }) {
            throw .invalidRequest(
                "header name \(HTTPSyntax.quotedForMessage(field.name)) is not a valid token: "
                    + "contains \(HTTPSyntax.describe(byte: bad))"
            )
        }
        if let bad = field.value.utf8.first(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) {
            throw .invalidRequest(
                "header \(HTTPSyntax.quotedForMessage(field.name)) has a value containing "
                    + "\(HTTPSyntax.describe(byte: bad)); header values must not contain CR, LF or NUL"
            )
        }
    }

    /// Equal when both hold the same fields for every name, in the same order within a name
    /// (names compared ignoring ASCII case). The relative order of fields with *different*
    /// names does not matter, as in HTTP itself (RFC 9110 §5.3).
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        guard lhs.fields.count == rhs.fields.count else { return false }
        if lhs.fields == rhs.fields { return true }
        // Compare, name by name, the ordered values; counts being equal, this also means rhs
        // has no name lhs lacks. O(n²), but a message has tens of fields, not thousands.
        for (index, field) in lhs.fields.enumerated() {
            let isFirstOfName = !lhs.fields[..<index].contains {
                HTTPSyntax.equalsIgnoringASCIICase($0.name, field.name)
            }
            guard isFirstOfName else { continue }
            let left = lhs.fields.lazy.filter { HTTPSyntax.equalsIgnoringASCIICase($0.name, field.name) }.map(\.value)
            let right = rhs.fields.lazy.filter { HTTPSyntax.equalsIgnoringASCIICase($0.name, field.name) }.map(\.value)
            guard left.elementsEqual(right) else { return false }
        }
        return true
    }

    // MARK: - Implementation

    private var fields: [Field]
}
