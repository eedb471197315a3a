import Foundation

/// The cookies of one client, as a value: what is stored, what a request gets (RFC 6265 §5.3,
/// §5.4), the limits, and, for a store with a file, what changed since the last write. Pure: no
/// lock, no disk, time given; ``CookieStore`` keeps it under a lock.
///
/// - **Limits**: at most ``maxPerSite`` cookies per site (the registrable domain,
///   ``PublicSuffixes/site(of:)``, so that subdomains share one allowance) and ``maxCookies``
///   in all. Over a limit, expired cookies go first, then the least recently used (sent or
///   stored), never the cookie just stored.
/// - **A request's cookies**: those whose domain matches the host (exactly, if host-only),
///   whose path matches, not expired, `Secure` ones over HTTPS only; longest path first, then
///   oldest first. Sending a cookie marks it used.
/// - **Over plain HTTP** a response cannot set a `Secure` cookie, nor replace one (RFC 6265bis
///   §5.7: a cookie named as a `Secure` one, in a domain and path it matches, is ignored).
struct CookieJar: Sendable {
    /// What a storage file must do for one cookie.
    enum Change: Sendable, Equatable {
        case save(Cookie)
        case delete
    }

    /// What changed since the file was last written: `clearsFile` first (every row deleted),
    /// then each change.
    struct Unsaved: Sendable {
        var clearsFile = false
        var changes: [Cookie.Key: Change] = [:]
        var isEmpty: Bool { !clearsFile && changes.isEmpty }
    }

    let maxCookies: Int
    let maxPerSite: Int
    let suffixes: PublicSuffixes
    /// Whether changes are kept for a storage file.
    let recordsChanges: Bool
    /// Whether session cookies are written to the file (else a session cookie is never in it,
    /// and its changes are not written, but for one replacing a persistent cookie: a deletion).
    let savesSessionCookies: Bool
    /// The cookies by site, then by identity.
    private var bySite: [String: [Cookie.Key: Cookie]] = [:]
    /// How many cookies `bySite` holds.
    private(set) var count = 0
    private(set) var unsaved = Unsaved()

    init(maxCookies: Int, maxPerSite: Int, suffixes: PublicSuffixes, recordsChanges: Bool = false, savesSessionCookies: Bool = false) {
        self.maxCookies = max(1, maxCookies)
        self.maxPerSite = max(1, maxPerSite)
        self.suffixes = suffixes
        self.recordsChanges = recordsChanges
        self.savesSessionCookies = savesSessionCookies
    }

    var isEmpty: Bool { count == 0 }

    /// Every cookie not expired at `now`.
    func all(at now: Date) -> [Cookie] {
        bySite.values.flatMap(\.values).filter { !$0.isExpired(at: now) }.sorted(by: Self.sendingOrder)
    }

    // MARK: Storing

    /// Stores what the `Set-Cookie` value `field` of a response to `url` asks at `now`.
    mutating func receive(_ field: String, from url: CookieURL, now: Date) throws(CookieRefusal) {
        let cookie = try SetCookieParser.cookie(from: field, url: url, now: now, suffixes: suffixes)
        if !url.isSecure, shadowsSecureCookie(cookie) {
            throw CookieRefusal("would replace a Secure cookie over plain HTTP")
        }
        store(cookie, now: now)
    }

    /// Stores a cookie set by hand, after checking it could be sent: a token as its name, no
    /// control character or `;` in its value, a path from `/`, a domain that is not a public
    /// suffix (unless host-only), the prefixes' rules.
    mutating func set(_ cookie: Cookie, now: Date) throws(CookieRefusal) {
        var cookie = cookie
        cookie.domain = PublicSuffixes.canonical(cookie.domain)
        guard HTTPSyntax.isToken(cookie.name) else { throw CookieRefusal("the name \(HTTPSyntax.quotedForMessage(cookie.name)) is not a token") }
        guard !cookie.value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == ";" }) else {
            throw CookieRefusal("the value of \(cookie.name) contains a control character or ';'")
        }
        guard cookie.name.utf8.count + cookie.value.utf8.count <= SetCookieParser.maxNameValueBytes else {
            throw CookieRefusal("name and value over \(SetCookieParser.maxNameValueBytes) bytes")
        }
        guard !cookie.domain.isEmpty, !cookie.domain.contains(where: { $0 == "/" || $0 == " " || $0 == ";" }) else {
            throw CookieRefusal("the domain \(HTTPSyntax.quotedForMessage(cookie.domain)) is not a host name")
        }
        guard cookie.isHostOnly || !suffixes.contains(cookie.domain) else {
            throw CookieRefusal("the domain \(cookie.domain) is a public suffix")
        }
        guard cookie.path.hasPrefix("/"), !cookie.path.contains(";") else { throw CookieRefusal("the path must start with /") }
        try SetCookieParser.checkPrefix(cookie, domainGiven: !cookie.isHostOnly)
        store(cookie, now: now)
    }

    /// Stores `cookie` (replacing the one with its name, domain and path, whose creation time it
    /// keeps); an expired one only deletes. Then the limits.
    mutating func store(_ cookie: Cookie, now: Date) {
        var cookie = cookie
        let (site, key) = (suffixes.site(of: cookie.domain), cookie.key)
        let existing = remove(key, site: site)
        cookie.createdAt = existing?.createdAt ?? now
        cookie.lastAccessedAt = now
        guard !cookie.isExpired(at: now) else {
            // One the jar does not hold may still be in the file; a session cookie never is.
            if existing.map(isFiled) ?? true { record(key, .delete) }
            return
        }
        bySite[site, default: [:]][key] = cookie
        count += 1
        if isFiled(cookie) {
            record(key, .save(cookie))
        } else if let existing, isFiled(existing) {
            // A session cookie replaces one the file holds, and is not written itself.
            record(key, .delete)
        }
        enforceLimits(site: site, keeping: key, now: now)
    }

    /// Cookies read from the storage file at launch: kept as they were (times included), but
    /// not expired ones, then the limits.
    mutating func load(_ cookies: [Cookie], now: Date) {
        for cookie in cookies where !cookie.isExpired(at: now) {
            let site = suffixes.site(of: cookie.domain)
            if bySite[site, default: [:]].updateValue(cookie, forKey: cookie.key) == nil { count += 1 }
        }
        for site in Array(bySite.keys) { enforceLimits(site: site, keeping: nil, now: now) }
    }

    // MARK: Sending

    /// The `Cookie` header value for a request to `url` (`nil` if no cookie applies), in
    /// sending order; marks those cookies used and drops expired ones met on the way.
    mutating func header(for url: CookieURL, now: Date) -> String? {
        guard count > 0 else { return nil }
        let site = suffixes.site(of: url.host)
        // Taken out while it changes, and changed only after the loop (whose iterator holds the
        // dictionary), so that marking cookies used does not copy it.
        guard var cookies = bySite.removeValue(forKey: site) else { return nil }
        var (sent, expired): ([Cookie], [Cookie.Key]) = ([], [])
        for (key, cookie) in cookies {
            if cookie.isExpired(at: now) {
                expired.append(key)
            } else if Self.matches(cookie, url) {
                sent.append(cookie)
            }
        }
        for key in expired {
            if let removed = cookies.removeValue(forKey: key), isFiled(removed) { record(key, .delete) }
            count -= 1
        }
        for cookie in sent { cookies[cookie.key]?.lastAccessedAt = now }
        if !cookies.isEmpty { bySite[site] = cookies }
        return Self.headerValue(of: sent.sorted(by: Self.sendingOrder))
    }

    /// The `Cookie` header value of `cookies`, in their order (`nil` for none).
    static func headerValue(of cookies: [Cookie]) -> String? {
        cookies.isEmpty ? nil : cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// The cookies a request to `url` would get at `now`, in sending order, without marking them used.
    func cookies(for url: CookieURL, now: Date) -> [Cookie] {
        let candidates = bySite[suffixes.site(of: url.host)].map { Array($0.values) } ?? []
        return candidates.filter { !$0.isExpired(at: now) && Self.matches($0, url) }.sorted(by: Self.sendingOrder)
    }

    /// RFC 6265 §5.4 step 1: the host, the path and the scheme's security.
    static func matches(_ cookie: Cookie, _ url: CookieURL) -> Bool {
        let hostMatches = cookie.isHostOnly ? cookie.domain == url.host : CookieURL.domainMatches(url.host, cookie.domain)
        return hostMatches && CookieURL.pathMatches(url.path, cookie.path) && (!cookie.isSecure || url.isSecure)
    }

    /// Longest path first, then the oldest, then by name (for a stable order among equals).
    static func sendingOrder(_ a: Cookie, _ b: Cookie) -> Bool {
        if a.path.count != b.path.count { return a.path.count > b.path.count }
        if a.createdAt != b.createdAt { return a.createdAt < b.createdAt }
        return (a.name, a.domain, a.path) < (b.name, b.domain, b.path)
    }

    // MARK: Removing

    /// Removes the cookie with `cookie`'s name, domain and path; whether there was one.
    @discardableResult
    mutating func remove(_ cookie: Cookie) -> Bool {
        let key = Cookie.Key(name: cookie.name, domain: PublicSuffixes.canonical(cookie.domain), path: cookie.path)
        guard let removed = remove(key, site: suffixes.site(of: key.domain)) else { return false }
        if isFiled(removed) { record(key, .delete) }
        return true
    }

    /// Removes every cookie.
    mutating func removeAll() {
        bySite = [:]
        count = 0
        if recordsChanges { unsaved = Unsaved(clearsFile: true) }
    }

    // MARK: The storage file's changes

    /// What changed since the last call, handed to the writer; forgotten here.
    mutating func takeUnsaved() -> Unsaved {
        defer { unsaved = Unsaved() }
        return unsaved
    }

    /// Gives back changes a write failed to make, behind any made since.
    mutating func restore(_ failed: Unsaved) {
        let newer = unsaved
        unsaved = failed
        if newer.clearsFile { unsaved = newer } else { unsaved.changes.merge(newer.changes) { _, new in new } }
    }

    /// Marks every cookie to be written again (the file was replaced by an empty one).
    mutating func markAllUnsaved() {
        guard recordsChanges else { return }
        unsaved = Unsaved(clearsFile: true)
        for cookie in bySite.values.flatMap(\.values) where isFiled(cookie) { record(cookie.key, .save(cookie)) }
    }

    // MARK: Implementation

    /// Whether `cookie` (not `Secure`) would stand for a `Secure` one of the same name: in a
    /// domain either matches, at a path under the other's.
    private func shadowsSecureCookie(_ cookie: Cookie) -> Bool {
        guard !cookie.isSecure, let candidates = bySite[suffixes.site(of: cookie.domain)] else { return false }
        return candidates.values.contains { old in
            old.isSecure && old.name == cookie.name && CookieURL.pathMatches(cookie.path, old.path)
                && (CookieURL.domainMatches(old.domain, cookie.domain) || CookieURL.domainMatches(cookie.domain, old.domain))
        }
    }

    /// Whether the storage file keeps `cookie` (a session cookie only with
    /// `savesSessionCookies`): only such a cookie's change is written.
    private func isFiled(_ cookie: Cookie) -> Bool {
        cookie.isPersistent || savesSessionCookies
    }

    private mutating func record(_ key: Cookie.Key, _ change: Change) {
        guard recordsChanges else { return }
        unsaved.changes[key] = change
    }

    /// Removes the cookie under `key` from `site`'s; the cookie removed, if any. Not recorded.
    private mutating func remove(_ key: Cookie.Key, site: String) -> Cookie? {
        guard let removed = bySite[site]?.removeValue(forKey: key) else { return nil }
        count -= 1
        if bySite[site]?.isEmpty == true { bySite[site] = nil }
        return removed
    }

    /// Evicts, expired first then least recently used, until `site` and the whole jar are
    /// within their limits; never the cookie under `keeping`.
    private mutating func enforceLimits(site: String, keeping: Cookie.Key?, now: Date) {
        if let excess = bySite[site].map({ $0.count - maxPerSite }), excess > 0 {
            evict(excess, from: bySite[site]?.values.map { (site, $0) } ?? [], keeping: keeping, now: now)
        }
        if count > maxCookies {
            let everyone = bySite.flatMap { site, cookies in cookies.values.map { (site, $0) } }
            evict(count - maxCookies, from: everyone, keeping: keeping, now: now)
        }
    }

    private mutating func evict(_ excess: Int, from candidates: [(site: String, cookie: Cookie)], keeping: Cookie.Key?, now: Date) {
        let order = candidates.filter { $0.cookie.key != keeping }.sorted { a, b in
            let (aExpired, bExpired) = (a.cookie.isExpired(at: now), b.cookie.isExpired(at: now))
            if aExpired != bExpired { return aExpired }
            if a.cookie.lastAccessedAt != b.cookie.lastAccessedAt { return a.cookie.lastAccessedAt < b.cookie.lastAccessedAt }
            return a.cookie.createdAt < b.cookie.createdAt
        }
        for (site, cookie) in order.prefix(excess) {
            _ = remove(cookie.key, site: site)
            if isFiled(cookie) { record(cookie.key, .delete) }
        }
    }
}
