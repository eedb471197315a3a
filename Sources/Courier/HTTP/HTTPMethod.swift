/// An HTTP request method such as `GET` or `POST`.
///
/// A plain value type (like `HTTPRequest.Method` in apple/swift-http-types) rather than a closed
/// enum, so that any method a server understands — WebDAV's `PROPFIND`, a custom `PURGE` — can be
/// sent without a change to Courier. Build one from the statics (`.get`, `.post`…), a string
/// literal (`"PURGE"`) or ``init(rawValue:)``.
///
/// ASCII letters are uppercased on creation, so `"get"` and `.get` are the same method. Nothing
/// else is checked here: ``HTTPRequest/validate()`` rejects a method that is not an RFC 9110
/// token before anything is sent.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method as it is written on the wire, e.g. `"GET"`. Always ASCII-uppercased.
    public let rawValue: String

    /// Creates a method from its name; ASCII letters are uppercased (`"patch"` → `"PATCH"`),
    /// any other character is kept as is.
    public init(rawValue: String) {
        self.rawValue = Self.asciiUppercased(rawValue)
    }

    /// Creates a method from a string literal, e.g. `let purge: HTTPMethod = "PURGE"`.
    /// Uppercased like ``init(rawValue:)``.
    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    /// The method name, e.g. `"GET"`.
    public var description: String { rawValue }

    /// `GET`: fetch a representation of the target resource. Safe and idempotent.
    public static let get = HTTPMethod(rawValue: "GET")
    /// `HEAD`: like `GET` but the response has no body. Safe and idempotent.
    public static let head = HTTPMethod(rawValue: "HEAD")
    /// `POST`: have the target resource process the body. Neither safe nor idempotent.
    public static let post = HTTPMethod(rawValue: "POST")
    /// `PUT`: replace the target resource with the body. Idempotent.
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `PATCH` (RFC 5789): apply a partial modification. Not idempotent in general.
    public static let patch = HTTPMethod(rawValue: "PATCH")
    /// `DELETE`: remove the target resource. Idempotent.
    public static let delete = HTTPMethod(rawValue: "DELETE")
    /// `OPTIONS`: ask which communication options the target supports. Safe and idempotent.
    public static let options = HTTPMethod(rawValue: "OPTIONS")

    /// Whether sending the request several times has the same intended effect on the server as
    /// sending it once (RFC 9110 §9.2.2): true for `GET`, `HEAD`, `OPTIONS`, `TRACE`, `PUT` and
    /// `DELETE`, false for everything else (`POST`, `PATCH`, unknown methods).
    ///
    /// Retry policies use it to decide whether a request whose outcome is unknown (the connection
    /// dropped after it was sent) may be sent again automatically.
    /// Whether it is one of the methods that write (`POST`, `PUT`, `PATCH`, `DELETE`): a success
    /// makes the cached reads of its URL stale, and it may be queued offline.
    var writes: Bool {
        self == .post || self == .put || self == .patch || self == .delete
    }

    public var isIdempotent: Bool {
        switch rawValue {
        case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE": true
        default: false
        }
    }

    // MARK: - Implementation

    /// `value` with `a`–`z` mapped to `A`–`Z`; returns `value` itself (no copy) when it has no
    /// lowercase ASCII letter, which is the case for every method written the usual way.
    private static func asciiUppercased(_ value: String) -> String {
        let isLower: (UInt8) -> Bool = { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }
        guard value.utf8.contains(where: isLower) else { return value }
        return String(decoding: value.utf8.map { isLower($0) ? $0 - 0x20 : $0 }, as: UTF8.self)
    }
}
