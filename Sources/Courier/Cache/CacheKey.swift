/// What a stored GET response is filed under: its URL and whose response it is.
///
/// Its hash is worked out once, when the key is made: a miss looks a key up, files it and
/// evicts by it in several dictionaries, and hashing the whole URL each time was the miss's
/// largest cost.
struct CacheKey: Hashable, Sendable {
    /// The request's URL, as sent.
    let url: String
    /// The session's identity for responses to requests with its credentials, "" for responses
    /// to requests without any (shared).
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

    /// Whether the URL is `prefix` or below it (`prefix/…`, `prefix?…`).
    func isAt(_ prefix: String) -> Bool {
        url == prefix || url.hasPrefix(prefix + "/") || url.hasPrefix(prefix + "?")
    }
}
