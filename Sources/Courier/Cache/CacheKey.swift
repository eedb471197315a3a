import Foundation

/// What a stored GET response is filed under: its URL and whose response it is.
///
/// Its hash is worked out once, when the key is made: a miss looks a key up, files it and
/// evicts by it in several dictionaries, and hashing the whole URL each time was the miss's
/// largest cost.
struct CacheKey: Hashable, Sendable {
    /// The request's URL, as sent.
    let url: String
    /// The session's identity for responses to requests with its credentials, "" for responses
    /// to requests without any (shared); with a cookie partition when the request carried
    /// cookies (``identity(_:cookie:)``).
    let identity: String
    private let hash: Int

    init(url: String, identity: String) {
        self.url = url
        self.identity = identity
        var hasher = Hasher()
        hasher.combine(url)
        hasher.combine(identity)
        hash = hasher.finalize()
    }

    static func == (left: CacheKey, right: CacheKey) -> Bool {
        left.hash == right.hash && left.url == right.url && left.identity == right.identity
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }

    /// What sets a cookie partition apart from the identity it belongs to (a character no
    /// session identity or user name holds).
    static let cookieMark = "\u{1F}cookie:"

    /// The identity of a response to a request with `identity`'s credentials that also carries
    /// `cookie` (its `Cookie` field as sent): its own partition, since cookies authenticate too.
    static func identity(_ identity: String, cookie: String?) -> String {
        guard let cookie else { return identity }
        return identity + cookieMark + SHA256Digest.hex(of: Data(cookie.utf8))
    }

    /// The session (or "") whose entry this is, without any cookie partition.
    var session: Substring {
        identity.range(of: Self.cookieMark).map { identity[..<$0.lowerBound] } ?? identity[...]
    }

    /// Whether it is the entry of a request that carried cookies.
    var hasCookies: Bool { identity.contains(Self.cookieMark) }

    /// Whether the URL is `prefix` or below it (`prefix/…`, `prefix?…`).
    func isAt(_ prefix: String) -> Bool {
        url == prefix || url.hasPrefix(prefix + "/") || url.hasPrefix(prefix + "?")
    }
}
