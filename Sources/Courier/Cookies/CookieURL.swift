import Foundation

/// A request's URL as cookies see it (RFC 6265 §5.1): the canonical host, the path as sent,
/// and whether the scheme is secure. Read once per hop.
struct CookieURL: Sendable {
    /// Lowercased; an IPv6 address without brackets.
    let host: String
    /// The percent-encoded path as sent, `/` when the URL has none.
    let path: String
    /// Whether the scheme is `https`. Loopback over `http` is not secure here (unlike some
    /// browsers): a `Secure` cookie goes over HTTPS only, as OkHttp sends it.
    let isSecure: Bool

    /// The URL's cookie view; `nil` for anything but an `http`/`https` URL with a host.
    init?(_ url: URL) {
        let text = url.absoluteString
        guard let origin = HTTPOrigin(text), origin.isHTTP, !origin.host.isEmpty else { return nil }
        host = origin.host
        isSecure = origin.scheme == "https"
        path = Self.path(of: text)
    }

    /// The path of an absolute URL's text: from the first `/` after the authority up to `?` or
    /// `#`; `/` when there is none.
    private static func path(of text: String) -> String {
        guard let scheme = text.range(of: "://") else { return "/" }
        let afterAuthority = text[scheme.upperBound...]
        guard let start = afterAuthority.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }),
              afterAuthority[start] == "/" else { return "/" }
        let rest = afterAuthority[start...]
        let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? rest.endIndex
        return String(rest[..<end])
    }

    /// RFC 6265 §5.1.4: the directory of the path (`/a/b/c` → `/a/b`; `/` for `/a` or none),
    /// the path of a cookie set without a `Path` attribute.
    var defaultPath: String {
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// RFC 6265 §5.1.3: `host` equals `domain`, or ends with `.domain` and is not an IP address.
    static func domainMatches(_ host: String, _ domain: String) -> Bool {
        if host == domain { return true }
        return host.hasSuffix(domain) && host.dropLast(domain.count).hasSuffix(".") && !isIPAddress(host)
    }

    /// RFC 6265 §5.1.4: the cookie's path is the request's, or a prefix of it ending at a `/`.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return cookiePath.hasSuffix("/") || requestPath.dropFirst(cookiePath.count).hasPrefix("/")
    }

    /// Whether `host` is an IPv4 or IPv6 address rather than a name.
    static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCIIDigit) }
    }
}

extension Character {
    /// `0`…`9` only (not other scripts' digits).
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
