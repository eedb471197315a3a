import Foundation

/// Reads a `Set-Cookie` field into the cookie it asks to store (RFC 6265 §5.2 and §5.3 steps
/// 1–10), or the reason it is ignored. Pure: the store decides what it replaces.
///
/// - `Max-Age` wins over `Expires` (whatever their order); `Max-Age` ≤ 0 or a past `Expires`
///   makes an expired cookie, which deletes the one it names. Expiry is capped at 400 days
///   (RFC 6265bis), as browsers cap it.
/// - `Domain` (leading dot dropped, lowercased) must domain-match the host and not be a public
///   suffix (unless it is the host itself: the cookie is then host-only); no `Domain` makes a
///   host-only cookie.
/// - `Path` not starting with `/` (or none) is the request's default path.
/// - Ignored as a whole: no `=` in the first pair, an empty name, a control character, a name
///   and value over 4096 bytes, `Secure` set over plain HTTP, and the `__Secure-` and `__Host-`
///   prefixes' rules broken. An attribute value over 1024 bytes ignores that attribute.
enum SetCookieParser {
    /// The longest name and value together (RFC 6265bis).
    static let maxNameValueBytes = 4096
    /// The longest attribute value (RFC 6265bis).
    static let maxAttributeBytes = 1024
    /// The longest lifetime a cookie is given (RFC 6265bis).
    static let maxLifetime: TimeInterval = 400 * 86_400

    /// The cookie `field` (one `Set-Cookie` value) from a response to `url` asks to store at `now`.
    static func cookie(from field: String, url: CookieURL, now: Date, suffixes: PublicSuffixes) throws(CookieRefusal) -> Cookie {
        guard !field.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) else {
            throw CookieRefusal("a control character")
        }
        let (pair, attributes) = split(field)
        guard let equals = pair.firstIndex(of: "=") else { throw CookieRefusal("no name=value pair") }
        let name = trimmed(pair[..<equals])
        let value = trimmed(pair[pair.index(after: equals)...])
        guard !name.isEmpty else { throw CookieRefusal("an empty name") }
        guard name.utf8.count + value.utf8.count <= maxNameValueBytes else {
            throw CookieRefusal("name and value over \(maxNameValueBytes) bytes")
        }
        var cookie = Cookie(name: name, value: value, domain: url.host, path: url.defaultPath)
        var (maxAge, expires): (Date?, Date?) = (nil, nil)
        var domain: String?
        for (attribute, argument) in attributes where argument.utf8.count <= maxAttributeBytes {
            switch attribute.lowercased() {
            case "expires":
                if let date = CookieDate.parse(argument) { expires = date }
            case "max-age":
                if let seconds = deltaSeconds(argument) {
                    maxAge = seconds <= 0 ? Date.distantPast : now.addingTimeInterval(TimeInterval(min(seconds, Int(maxLifetime))))
                }
            case "domain":
                // An empty Domain is ignored, as browsers do.
                if !argument.isEmpty { domain = PublicSuffixes.canonical(argument) }
            case "path":
                cookie.path = argument.hasPrefix("/") ? argument : url.defaultPath
            case "secure":
                cookie.isSecure = true
            case "httponly":
                cookie.isHTTPOnly = true
            case "samesite":
                cookie.sameSite = Cookie.SameSite.allCases.first { $0.rawValue.lowercased() == argument.lowercased() }
            default:
                break
            }
        }
        cookie.expiresAt = (maxAge ?? expires).map { min($0, now.addingTimeInterval(maxLifetime)) }
        if let domain {
            if suffixes.contains(domain) {
                guard domain == url.host else { throw CookieRefusal("Domain=\(domain) is a public suffix") }
            } else {
                guard CookieURL.domainMatches(url.host, domain) else {
                    throw CookieRefusal("Domain=\(domain) does not match the host \(url.host)")
                }
                cookie.domain = domain
                cookie.isHostOnly = false
            }
        }
        if cookie.isSecure, !url.isSecure { throw CookieRefusal("Secure, set over plain HTTP") }
        try checkPrefix(cookie, domainGiven: domain != nil)
        return cookie
    }

    /// The rules of the `__Secure-` and `__Host-` name prefixes (RFC 6265bis §4.1.3, compared
    /// ignoring case): both need `Secure`; `__Host-` also no `Domain` and `Path=/`.
    static func checkPrefix(_ cookie: Cookie, domainGiven: Bool) throws(CookieRefusal) {
        let name = cookie.name.lowercased()
        if name.hasPrefix("__secure-"), !cookie.isSecure { throw CookieRefusal("a __Secure- cookie without Secure") }
        if name.hasPrefix("__host-"), !cookie.isSecure || domainGiven || !cookie.isHostOnly || cookie.path != "/" {
            throw CookieRefusal("a __Host- cookie needs Secure, Path=/ and no Domain")
        }
    }

    /// The `Set-Cookie` values in one header field: usually the field itself, but a transport
    /// that joins repeated fields with ", " (FoundationNetworking, `URLSession`) hands several
    /// in one. A comma starts another cookie only where a `name=` follows it before any `;` or
    /// `,`, so the comma of an `Expires` date (`Wed, 21 Oct 2015 …`) never splits.
    static func values(in field: String) -> [String] {
        guard field.contains(",") else { return [field] }
        var values: [String] = []
        var start = field.startIndex
        var index = field.startIndex
        while index < field.endIndex {
            if field[index] == ",", startsCookie(field[field.index(after: index)...]) {
                values.append(String(field[start..<index]))
                start = field.index(after: index)
            }
            index = field.index(after: index)
        }
        values.append(String(field[start...]))
        return values.map { trimmed($0[...]) }.filter { !$0.isEmpty }
    }

    /// Whether `rest` (after a comma) begins with `name=`: a name without spaces, then `=`,
    /// before any `;` or `,`.
    private static func startsCookie(_ rest: Substring) -> Bool {
        let text = rest.drop { $0 == " " || $0 == "\t" }
        guard let stop = text.firstIndex(where: { $0 == "=" || $0 == ";" || $0 == "," }), text[stop] == "=" else { return false }
        let name = text[..<stop]
        return !name.isEmpty && !name.contains(where: { $0 == " " || $0 == "\t" })
    }

    /// The name-value pair and the attributes (name, value: both trimmed).
    private static func split(_ field: String) -> (pair: Substring, attributes: [(String, String)]) {
        let parts = field.split(separator: ";", omittingEmptySubsequences: false)
        let attributes = parts.dropFirst().compactMap { part -> (String, String)? in
            if let equals = part.firstIndex(of: "=") {
                return (trimmed(part[..<equals]), trimmed(part[part.index(after: equals)...]))
            }
            let name = trimmed(part)
            return name.isEmpty ? nil : (name, "")
        }
        return (parts[0], attributes)
    }

    /// `Max-Age`'s value (RFC 6265 §5.2.2): digits, with an optional leading `-`; anything else
    /// is ignored. Huge values saturate.
    private static func deltaSeconds(_ text: String) -> Int? {
        let digits = text.hasPrefix("-") ? text.dropFirst() : text[...]
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        guard let magnitude = Int(digits) else { return text.hasPrefix("-") ? -1 : Int.max }
        return text.hasPrefix("-") ? -magnitude : magnitude
    }

    /// Without leading and trailing spaces and tabs.
    private static func trimmed(_ text: Substring) -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(text[first...last])
    }
}
