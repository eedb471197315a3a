import Foundation

/// One HTTP cookie as the client's cookie store keeps it (RFC 6265 §5.3): what a server's
/// `Set-Cookie` left, or what you set with ``ClientCookies/set(_:)``.
///
/// A cookie is identified by its ``name``, ``domain`` and ``path``: storing another with the
/// same three replaces it (keeping its ``createdAt``). Its ``description`` hides the value.
public struct Cookie: Sendable, Hashable, CustomStringConvertible {
    /// The `SameSite` attribute as the server sent it. Kept, not enforced: it protects a
    /// browser's cross-site requests, and a client making its own calls has no "site".
    public enum SameSite: String, Sendable, Hashable, CaseIterable {
        /// `SameSite=Strict`.
        case strict = "Strict"
        /// `SameSite=Lax`.
        case lax = "Lax"
        /// `SameSite=None`.
        case none = "None"
    }

    /// The cookie's name, e.g. `sid`.
    public var name: String
    /// The cookie's value, sent as it was received.
    public var value: String
    /// The host (``isHostOnly``) or the domain whose hosts get the cookie: lowercased, without
    /// a leading dot.
    public var domain: String
    /// Whether only ``domain`` itself gets the cookie (no `Domain` attribute was given), rather
    /// than ``domain`` and every host under it.
    public var isHostOnly: Bool
    /// The path under which the cookie is sent (`/` for the whole host).
    public var path: String
    /// When the cookie expires; `nil` for a session cookie, kept for the client's lifetime
    /// (and, unless ``CookieConfiguration/keepsSessionCookies``, not written to a storage file).
    public var expiresAt: Date?
    /// Sent over HTTPS only (`Secure`).
    public var isSecure: Bool
    /// Marked `HttpOnly`: kept and reported; it only matters to browsers' scripts, so the
    /// cookie is sent with HTTP requests like any other.
    public var isHTTPOnly: Bool
    /// The `SameSite` attribute, if one was given (kept, not enforced).
    public var sameSite: SameSite?
    /// When the store first kept a cookie of this name, domain and path.
    public internal(set) var createdAt: Date
    /// When the cookie was last sent or stored.
    public internal(set) var lastAccessedAt: Date

    /// Creates a cookie to set with ``ClientCookies/set(_:)``. `domain` is a host (host-only,
    /// the default) or, with `isHostOnly: false`, a domain whose hosts all get it.
    public init(
        name: String, value: String, domain: String, path: String = "/", expiresAt: Date? = nil,
        isSecure: Bool = false, isHTTPOnly: Bool = false, sameSite: SameSite? = nil, isHostOnly: Bool = true
    ) {
        self.name = name
        self.value = value
        self.domain = domain
        self.isHostOnly = isHostOnly
        self.path = path
        self.expiresAt = expiresAt
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.sameSite = sameSite
        createdAt = .distantPast
        lastAccessedAt = .distantPast
    }

    /// Whether the cookie has an expiry (it outlives the client when the store has a file).
    public var isPersistent: Bool { expiresAt != nil }

    /// `name=<redacted>; Domain=…; Path=…` and the flags: never the value, which is usually a
    /// credential.
    public var description: String {
        var text = "\(name)=\(Redaction.placeholder); \(isHostOnly ? "Host" : "Domain")=\(domain); Path=\(path)"
        if let expiresAt { text += "; Expires=\(expiresAt)" }
        if isSecure { text += "; Secure" }
        if isHTTPOnly { text += "; HttpOnly" }
        if let sameSite { text += "; SameSite=\(sameSite.rawValue)" }
        return text
    }

    /// What identifies a cookie in a store (RFC 6265 §5.3 step 11).
    struct Key: Hashable, Sendable {
        let name: String
        let domain: String
        let path: String
    }

    var key: Key { Key(name: name, domain: domain, path: path) }

    /// Whether the cookie has expired at `now`.
    func isExpired(at now: Date) -> Bool {
        expiresAt.map { $0 <= now } ?? false
    }
}
