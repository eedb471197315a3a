import Foundation

/// A user name and password, for HTTP Basic (RFC 7617) or Digest (RFC 7616) authentication:
/// what ``AuthInterceptor/basic(user:password:allowsInsecureHTTP:)`` and
/// ``AuthInterceptor/digest(user:password:allowsInsecureHTTP:)`` send. Its description and
/// mirror hide the password, so printing or dumping one does not log it.
public struct PasswordCredential: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    /// The user name.
    public var user: String
    /// The password.
    public var password: String

    /// Creates a credential.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// The `Authorization` value of Basic authentication: `Basic ` and the Base64 of
    /// `user:password` in UTF-8 (RFC 7617), for a request you build yourself.
    /// - Throws: ``NetworkError/invalidRequest(_:)`` when the user name contains `:` or either
    ///   part contains a control character, which RFC 7617 does not allow.
    public func basicAuthorization() throws(NetworkError) -> String {
        guard !user.utf8.contains(UInt8(ascii: ":")) else {
            throw .invalidRequest("a Basic user name must not contain ':' (RFC 7617)")
        }
        guard !(user.unicodeScalars.contains { $0.properties.generalCategory == .control }
            || password.unicodeScalars.contains { $0.properties.generalCategory == .control })
        else { throw .invalidRequest("a Basic user name or password must not contain control characters (RFC 7617)") }
        return "Basic " + Data((user + ":" + password).utf8).base64EncodedString()
    }

    /// `PasswordCredential(user: ann, password: <redacted>)`.
    public var description: String { "PasswordCredential(user: \(user), password: <redacted>)" }

    /// The user and a placeholder for the password.
    public var customMirror: Mirror {
        Mirror(self, children: ["user": user, "password": "<redacted>"], displayStyle: .struct)
    }
}
