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

    /// What `Dictionary` and `Set` hash a key by: the worked-out hash mixed with the table's
    /// seed (``splitMix(_:seed:)``). The worked-out hash is already a seeded SipHash of the URL
    /// and identity, which is what keeps the keys' hashes unpredictable. Hashing it again, as an
    /// `Int` key is hashed, would add a SipHash round to each of the dozen look-ups, inserts and
    /// removals of a key that a miss makes. (`Hashable`'s underscored requirement, public and what the
    /// standard library's own integer keys implement.)
    func _rawHashValue(seed: Int) -> Int {
        splitMix(UInt64(truncatingIfNeeded: hash), seed: seed)
    }

    /// Whether the URL is `prefix` or below it (`prefix/…`, `prefix?…`).
    func isAt(_ prefix: String) -> Bool {
        url == prefix || url.hasPrefix(prefix + "/") || url.hasPrefix(prefix + "?")
    }
}
