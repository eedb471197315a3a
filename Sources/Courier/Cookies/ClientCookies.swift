import Foundation

/// The cookie store's calls: `client.cookies`. Read what is kept, set and remove cookies by
/// hand, clear them all.
///
/// Without ``APIClient/Configuration/cookies`` every call throws
/// ``NetworkError/componentUnavailable(_:)`` named `"cookies"` (the rule of every optional
/// group; see ``APIClient``).
public struct ClientCookies: Sendable {
    let store: CookieStore?
    /// Run when the cookies are cleared: the cache's entries for requests that carried cookies
    /// go with them (wired by the client, so that Cookies/ does not depend on Cache/).
    let cleared: @Sendable () -> Void

    /// Every cookie kept and not expired, in the order they would be sent (longest path first,
    /// then oldest).
    public func all() async throws(NetworkError) -> [Cookie] {
        try await jar().read { jar, now in jar.all(at: now) }
    }

    /// The cookies a request to `url` would carry now (host, path and `Secure` matched; none
    /// expired), in the order they would be sent.
    /// - Throws: ``NetworkError/invalidURL(_:)`` for a URL that is not `http` or `https` with a host.
    public func cookies(for url: URL) async throws(NetworkError) -> [Cookie] {
        let store = try jar()
        guard let target = CookieURL(url) else { throw .invalidURL("cookies are kept for http and https URLs with a host, not \(url)") }
        return await store.read { jar, now in jar.cookies(for: target, now: now) }
    }

    /// Keeps `cookie` (replacing the one with its name, domain and path; an expired one only
    /// deletes that one).
    /// - Throws: ``NetworkError/invalidRequest(_:)`` for a cookie that could not be sent: a
    ///   name that is not a token, a control character or `;` in the value, a path not
    ///   starting with `/`, a public suffix as a domain that is not host-only, a `__Host-` or
    ///   `__Secure-` cookie that breaks its prefix's rules; ``NetworkError/storageFailed(_:)``
    ///   when the storage file could not be written (the cookie is kept in memory).
    public func set(_ cookie: Cookie) async throws(NetworkError) {
        try await jar().change { (jar: inout CookieJar, now) throws(CookieRefusal) in try jar.set(cookie, now: now) }
    }

    /// Keeps what a `Set-Cookie` field's value asks, as if a response from `url` had carried
    /// it (e.g. a cookie handed over by a login web view).
    /// - Throws: ``NetworkError/invalidRequest(_:)`` with the reason the cookie is ignored
    ///   (see ``set(_:)``, plus a `Domain` the URL's host does not match, or `Secure` for an
    ///   `http` URL); ``NetworkError/invalidURL(_:)`` for a URL that is not `http` or `https`;
    ///   ``NetworkError/storageFailed(_:)`` as for ``set(_:)``.
    public func set(_ setCookie: String, from url: URL) async throws(NetworkError) {
        let store = try jar()
        guard let target = CookieURL(url) else { throw .invalidURL("cookies are kept for http and https URLs with a host, not \(url)") }
        try await store.change { (jar: inout CookieJar, now) throws(CookieRefusal) in try jar.receive(setCookie, from: target, now: now) }
    }

    /// Removes the cookie with `cookie`'s name, domain and path; whether there was one.
    /// - Throws: ``NetworkError/storageFailed(_:)`` when the storage file could not be written.
    @discardableResult
    public func remove(_ cookie: Cookie) async throws(NetworkError) -> Bool {
        try await jar().change { (jar: inout CookieJar, _) throws(CookieRefusal) in jar.remove(cookie) }
    }

    /// Removes every cookie, from memory and from the storage file, and the cached responses to
    /// requests that carried cookies. ``ClientSession/signOut()`` does this too, unless
    /// ``CookieConfiguration/clearsOnSignOut`` is off.
    /// - Throws: ``NetworkError/storageFailed(_:)`` when the storage file could not be written
    ///   (the cookies and those responses are gone from memory all the same).
    public func clear() async throws(NetworkError) {
        let store = try jar()
        // After the jar is empty, so that no request files a new entry under the old cookies.
        defer { cleared() }
        try await store.change { (jar: inout CookieJar, _) throws(CookieRefusal) in jar.removeAll() }
    }

    private func jar() throws(NetworkError) -> CookieStore {
        guard let store else { throw ClientGroup.cookies.unavailable }
        return store
    }
}
