import Foundation
import Testing

@testable import Courier

/// The jar on values: which cookies a request gets (RFC 6265 §5.4), replacement, deletion, the
/// limits and their eviction order, and the changes recorded for a storage file.
@Suite struct CookieJarTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func url(_ text: String) -> CookieURL { CookieURL(URL(string: text)!)! }

    func jar(maxCookies: Int = 3000, maxPerSite: Int = 50, records: Bool = false, savesSession: Bool = false) -> CookieJar {
        CookieJar(maxCookies: maxCookies, maxPerSite: maxPerSite, suffixes: PublicSuffixes(), recordsChanges: records, savesSessionCookies: savesSession)
    }

    @Test("a host-only cookie goes to its host only; a Domain cookie to the domain and its subdomains")
    func domainMatching() throws {
        var jar = jar()
        try jar.receive("host=1", from: url("https://example.com/"), now: now)
        try jar.receive("wide=1; Domain=example.com", from: url("https://example.com/"), now: now)
        #expect(jar.header(for: url("https://example.com/"), now: now) == "host=1; wide=1")
        #expect(jar.header(for: url("https://api.example.com/"), now: now) == "wide=1")
        #expect(jar.header(for: url("https://a.b.example.com/"), now: now) == "wide=1")
        #expect(jar.header(for: url("https://notexample.com/"), now: now) == nil)
        #expect(jar.header(for: url("https://example.com.evil.org/"), now: now) == nil)
        #expect(jar.header(for: url("https://example.org/"), now: now) == nil)
    }

    @Test("paths match at '/' boundaries; longer paths are sent first, then older cookies")
    func pathsAndOrder() throws {
        var jar = jar()
        let site = url("https://example.com/")
        try jar.receive("root=1; Path=/", from: site, now: now)
        try jar.receive("api=1; Path=/api", from: site, now: now.addingTimeInterval(1))
        try jar.receive("older=1; Path=/api", from: site, now: now)
        try jar.receive("deep=1; Path=/api/v1/", from: site, now: now)
        #expect(jar.header(for: url("https://example.com/api/v1/users"), now: now) == "deep=1; older=1; api=1; root=1")
        #expect(jar.header(for: url("https://example.com/api"), now: now) == "older=1; api=1; root=1")
        #expect(jar.header(for: url("https://example.com/apis"), now: now) == "root=1")
        #expect(jar.header(for: url("https://example.com/api/v1"), now: now) == "older=1; api=1; root=1")
        #expect(jar.header(for: url("https://example.com/?q=/api"), now: now) == "root=1")
    }

    @Test("a Secure cookie goes over HTTPS only, loopback included")
    func secureOverHTTPSOnly() throws {
        var jar = jar()
        try jar.set(Cookie(name: "s", value: "1", domain: "127.0.0.1", isSecure: true), now: now)
        try jar.set(Cookie(name: "p", value: "2", domain: "127.0.0.1"), now: now)
        #expect(jar.header(for: url("http://127.0.0.1:8080/"), now: now) == "p=2")
        #expect(jar.header(for: url("https://127.0.0.1:8443/"), now: now) == "p=2; s=1")
    }

    @Test("the same name, domain and path replaces, keeping the creation time; an expired one deletes")
    func replaceAndDelete() throws {
        var jar = jar()
        let site = url("https://example.com/")
        try jar.receive("a=1; Path=/", from: site, now: now)
        try jar.receive("a=2; Path=/", from: site, now: now.addingTimeInterval(10))
        try jar.receive("a=other; Path=/x", from: site, now: now)
        #expect(jar.count == 2)
        let replaced = try #require(jar.all(at: now).first { $0.path == "/" })
        #expect(replaced.value == "2")
        #expect(replaced.createdAt == now)
        #expect(replaced.lastAccessedAt == now.addingTimeInterval(10))
        try jar.receive("a=; Path=/; Max-Age=0", from: site, now: now)
        #expect(jar.all(at: now).map(\.path) == ["/x"])
        try jar.receive("a=; Path=/x; Expires=Thu, 01 Jan 1970 00:00:00 GMT", from: site, now: now)
        #expect(jar.isEmpty)
    }

    @Test("a cookie past its expiry is not sent and is dropped when met")
    func expiresWithTime() throws {
        var jar = jar()
        try jar.receive("a=1; Max-Age=60", from: url("https://example.com/"), now: now)
        #expect(jar.header(for: url("https://example.com/"), now: now.addingTimeInterval(59)) == "a=1")
        #expect(jar.header(for: url("https://example.com/"), now: now.addingTimeInterval(60)) == nil)
        #expect(jar.isEmpty)
    }

    @Test("over plain HTTP a response cannot replace a Secure cookie of the same name")
    func secureCookiesLeftAlone() throws {
        var jar = jar()
        try jar.receive("sid=secure; Secure; Domain=example.com", from: url("https://example.com/"), now: now)
        #expect(throws: CookieRefusal.self) { try jar.receive("sid=forged; Path=/", from: url("http://www.example.com/"), now: now) }
        try jar.receive("other=1", from: url("http://www.example.com/"), now: now)
        #expect(jar.header(for: url("https://www.example.com/"), now: now) == "other=1; sid=secure")
    }

    @Test("per site, expired cookies are evicted first, then the least recently used; never the one just stored")
    func perSiteEviction() throws {
        var jar = jar(maxPerSite: 3)
        let site = url("https://example.com/")
        try jar.receive("old=1; Max-Age=10", from: site, now: now)
        try jar.receive("a=1", from: url("https://a.example.com/"), now: now.addingTimeInterval(1))
        try jar.receive("b=1", from: url("https://b.example.com/"), now: now.addingTimeInterval(2))
        // `a` used since: `b` is now the least recently used one.
        _ = jar.header(for: url("https://a.example.com/"), now: now.addingTimeInterval(5))
        // `old` expired by now: it goes first.
        try jar.receive("c=1", from: site, now: now.addingTimeInterval(20))
        #expect(Set(jar.all(at: now).map(\.name)) == ["a", "b", "c"])
        try jar.receive("d=1", from: site, now: now.addingTimeInterval(21))
        #expect(Set(jar.all(at: now).map(\.name)) == ["a", "c", "d"])
        // Another site has its own allowance.
        try jar.receive("x=1", from: url("https://example.org/"), now: now.addingTimeInterval(22))
        #expect(jar.count == 4)
    }

    @Test("in total, the least recently used of any site goes")
    func totalEviction() throws {
        var jar = jar(maxCookies: 3)
        for (index, host) in ["a.com", "b.com", "c.com", "d.com"].enumerated() {
            try jar.receive("n=\(index)", from: url("https://\(host)/"), now: now.addingTimeInterval(Double(index)))
            if host == "b.com" { _ = jar.header(for: url("https://a.com/"), now: now.addingTimeInterval(2)) }
        }
        #expect(Set(jar.all(at: now).map(\.domain)) == ["a.com", "c.com", "d.com"])
    }

    @Test("cookies set by hand are checked as a server's are")
    func setByHand() throws {
        var jar = jar()
        try jar.set(Cookie(name: "wide", value: "1", domain: ".Example.com", isHostOnly: false), now: now)
        #expect(jar.header(for: url("https://api.example.com/"), now: now) == "wide=1")
        #expect(throws: CookieRefusal.self) { try jar.set(Cookie(name: "a b", value: "1", domain: "example.com"), now: now) }
        #expect(throws: CookieRefusal.self) { try jar.set(Cookie(name: "a", value: "1;b=2", domain: "example.com"), now: now) }
        #expect(throws: CookieRefusal.self) { try jar.set(Cookie(name: "a", value: "1\r\n", domain: "example.com"), now: now) }
        #expect(throws: CookieRefusal.self) { try jar.set(Cookie(name: "a", value: "1", domain: "co.uk", isHostOnly: false), now: now) }
        #expect(throws: CookieRefusal.self) { try jar.set(Cookie(name: "a", value: "1", domain: ""), now: now) }
        #expect(throws: CookieRefusal.self) { try jar.set(Cookie(name: "a", value: "1", domain: "example.com", path: "x"), now: now) }
        #expect(throws: CookieRefusal.self) { try jar.set(Cookie(name: "__Host-a", value: "1", domain: "example.com"), now: now) }
        #expect(jar.count == 1)
    }

    @Test("a file's changes: saves and deletions by identity, session cookies only as the deletion of a kept one they replace, a clear first")
    func unsavedChanges() throws {
        var jar = jar(records: true)
        let site = url("https://example.com/")
        try jar.receive("kept=1; Max-Age=60", from: site, now: now)
        try jar.receive("session=1", from: site, now: now)
        try jar.receive("session=2", from: site, now: now)
        var unsaved = jar.takeUnsaved()
        #expect(unsaved.changes.count == 1)   // a session cookie the file never held writes nothing
        try jar.receive("swapped=1; Max-Age=60", from: site, now: now)
        try jar.receive("swapped=2", from: site, now: now)
        try jar.receive("session=; Max-Age=0", from: site, now: now)
        #expect(jar.takeUnsaved().changes == [Cookie.Key(name: "swapped", domain: "example.com", path: "/"): .delete])
        guard case .save(let kept) = unsaved.changes[Cookie.Key(name: "kept", domain: "example.com", path: "/")] else {
            Issue.record("kept is not saved")
            return
        }
        #expect(kept.value == "1")
        #expect(jar.takeUnsaved().isEmpty)
        // A failed write's changes come back behind newer ones.
        try jar.receive("kept=2; Max-Age=60", from: site, now: now)
        jar.restore(unsaved)
        unsaved = jar.takeUnsaved()
        guard case .save(let newest) = unsaved.changes[Cookie.Key(name: "kept", domain: "example.com", path: "/")] else {
            Issue.record("kept is not saved")
            return
        }
        #expect(newest.value == "2")
        jar.removeAll()
        #expect(jar.takeUnsaved().clearsFile)
        // Sending records nothing; a memory-only jar records nothing at all.
        try jar.receive("kept=3; Max-Age=60", from: site, now: now)
        _ = jar.takeUnsaved()
        _ = jar.header(for: site, now: now)
        #expect(jar.takeUnsaved().isEmpty)
        var memory = self.jar()
        try memory.receive("kept=1; Max-Age=60", from: site, now: now)
        #expect(memory.unsaved.isEmpty)
    }

    @Test("description hides the value")
    func descriptionHidesTheValue() {
        let cookie = Cookie(name: "sid", value: "abc123", domain: "example.com", isSecure: true, isHTTPOnly: true)
        #expect(!cookie.description.contains("abc123"))
        #expect(cookie.description.hasPrefix("sid=<redacted>; Host=example.com; Path=/; Secure; HttpOnly"))
    }
}
