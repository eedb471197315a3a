import Foundation
import Testing

@testable import Courier

/// RFC 6265 §5.2 and §5.3 steps 1–10 on values: what a `Set-Cookie` asks to store, or why it is ignored.
@Suite struct SetCookieParserTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let suffixes = PublicSuffixes()

    func url(_ text: String) -> CookieURL { CookieURL(URL(string: text)!)! }

    func parse(_ field: String, from text: String = "https://api.example.com/v1/users/42") throws(CookieRefusal) -> Cookie {
        try SetCookieParser.cookie(from: field, url: url(text), now: now, suffixes: suffixes)
    }

    func refusal(_ field: String, from text: String = "https://api.example.com/v1/users/42") -> String? {
        do throws(CookieRefusal) {
            _ = try parse(field, from: text)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test("a bare cookie is host-only, at the request's default path, a session cookie, no flags")
    func bareCookie() throws {
        let cookie = try parse("sid=abc123")
        #expect(cookie.name == "sid")
        #expect(cookie.value == "abc123")
        #expect(cookie.domain == "api.example.com")
        #expect(cookie.isHostOnly)
        #expect(cookie.path == "/v1/users")
        #expect(cookie.expiresAt == nil)
        #expect(!cookie.isSecure && !cookie.isHTTPOnly && cookie.sameSite == nil)
    }

    @Test("attributes are read ignoring case and spaces; the value keeps its inner spaces and '='")
    func attributes() throws {
        let cookie = try parse(" token = a b=c ;  path=/v1 ; SECURE; httponly; SameSite=lax; Domain=.Example.COM; Unknown=1")
        #expect(cookie.name == "token")
        #expect(cookie.value == "a b=c")
        #expect(cookie.path == "/v1")
        #expect(cookie.isSecure && cookie.isHTTPOnly)
        #expect(cookie.sameSite == .lax)
        #expect(cookie.domain == "example.com")
        #expect(!cookie.isHostOnly)
        #expect(try parse("a=1; SameSite=Bogus").sameSite == nil)
    }

    @Test("Max-Age wins over Expires whatever their order; an invalid Max-Age leaves Expires")
    func maxAgeOverExpires() throws {
        #expect(try parse("a=1; Max-Age=60; Expires=Wed, 21 Oct 2015 07:28:00 GMT").expiresAt == now.addingTimeInterval(60))
        #expect(try parse("a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Max-Age=60").expiresAt == now.addingTimeInterval(60))
        #expect(try parse("a=1; Max-Age=1e3; Expires=Wed, 21 Oct 2015 07:28:00 GMT").expiresAt == Date(timeIntervalSince1970: 1_445_412_480))
        #expect(try parse("a=1; Expires=whenever").expiresAt == nil)
    }

    @Test("Max-Age=0, a negative Max-Age and a past Expires make an expired cookie (a deletion)")
    func deletion() throws {
        #expect(try parse("a=; Max-Age=0").isExpired(at: now))
        #expect(try parse("a=; Max-Age=-1").isExpired(at: now))
        #expect(try parse("a=; Expires=Thu, 01 Jan 1970 00:00:00 GMT").isExpired(at: now))
    }

    @Test("expiry is capped at 400 days, a huge Max-Age included")
    func expiryCapped() throws {
        let cap = now.addingTimeInterval(400 * 86_400)
        #expect(try parse("a=1; Max-Age=999999999999999999999999").expiresAt == cap)
        #expect(try parse("a=1; Expires=Fri, 01 Jan 2100 00:00:00 GMT").expiresAt == cap)
    }

    @Test("Domain: the host itself or a parent is kept; a public suffix, another site or a sibling is refused")
    func domain() throws {
        #expect(try parse("a=1; Domain=api.example.com").isHostOnly == false)
        #expect(try parse("a=1; Domain=").isHostOnly)
        #expect(refusal("a=1; Domain=com")?.contains("public suffix") == true)
        #expect(refusal("a=1; Domain=co.uk", from: "https://shop.example.co.uk/")?.contains("public suffix") == true)
        #expect(refusal("a=1; Domain=github.io", from: "https://alice.github.io/")?.contains("public suffix") == true)
        #expect(refusal("a=1; Domain=example.org")?.contains("does not match") == true)
        #expect(refusal("a=1; Domain=web.example.com")?.contains("does not match") == true)
        #expect(refusal("a=1; Domain=ample.com", from: "https://example.com/")?.contains("does not match") == true)
    }

    @Test("a Domain naming the host that is a public suffix makes a host-only cookie (localhost)")
    func publicSuffixHost() throws {
        let cookie = try parse("a=1; Domain=localhost", from: "http://localhost:8080/")
        #expect(cookie.isHostOnly && cookie.domain == "localhost")
    }

    @Test("an IP host never takes a parent Domain")
    func ipHost() throws {
        #expect(try parse("a=1; Domain=127.0.0.1", from: "http://127.0.0.1:9/").domain == "127.0.0.1")
        #expect(refusal("a=1; Domain=0.0.1", from: "http://127.0.0.1:9/") != nil)
    }

    @Test("Path: one not starting with / (or empty) is the default path", arguments: [
        ("a=1; Path=relative", "/v1/users"), ("a=1; Path=", "/v1/users"), ("a=1; Path=/", "/"), ("a=1; Path=/x/y/", "/x/y/"),
    ])
    func path(field: String, expected: String) throws {
        #expect(try parse(field).path == expected)
    }

    @Test("default paths of request paths (RFC 6265 §5.1.4)", arguments: [
        ("https://h.example/", "/"), ("https://h.example", "/"), ("https://h.example/a", "/"), ("https://h.example/a/b", "/a"),
        ("https://h.example/a/b/?q=/x/y", "/a/b"), ("https://h.example?q=/a/b", "/"),
    ])
    func defaultPath(text: String, expected: String) {
        #expect(url(text).defaultPath == expected)
    }

    @Test("malformed values are ignored with a reason, never a crash", arguments: [
        "", "noequals", "=value", "  =value", ";", "a\u{0}=1", "a=1\r\nX-Injected: 1", "a=\u{7F}", "a=1; Path=/\u{1}",
        String(repeating: "v", count: 5000) + "=1",
    ])
    func malformed(field: String) {
        #expect(refusal(field) != nil)
    }

    @Test("an attribute value over 1024 bytes is ignored, the cookie kept")
    func longAttribute() throws {
        let cookie = try parse("a=1; Path=/" + String(repeating: "p", count: 1100))
        #expect(cookie.path == "/v1/users")
    }

    @Test("Secure is refused over plain HTTP, loopback included")
    func secureOverHTTP() {
        #expect(refusal("a=1; Secure", from: "http://api.example.com/") != nil)
        #expect(refusal("a=1; Secure", from: "http://127.0.0.1:8080/") != nil)
        #expect(refusal("a=1; Secure", from: "https://api.example.com/") == nil)
    }

    @Test("the __Secure- and __Host- prefixes' rules, their case ignored")
    func prefixes() {
        #expect(refusal("__Secure-a=1") != nil)
        #expect(refusal("__Secure-a=1; Secure; Domain=example.com") == nil)
        #expect(refusal("__Host-a=1; Secure; Path=/") == nil)
        #expect(refusal("__host-a=1; Secure; Path=/") == nil)
        #expect(refusal("__Host-a=1; Secure") != nil)             // default path /v1/users
        #expect(refusal("__Host-a=1; Secure; Path=/; Domain=api.example.com") != nil)
        #expect(refusal("__HOST-a=1; Path=/") != nil)
    }

    @Test("fields a transport joined with ', ' are split at each 'name=', never inside an Expires date")
    func joinedFields() {
        #expect(SetCookieParser.values(in: "a=1; Path=/") == ["a=1; Path=/"])
        #expect(SetCookieParser.values(in: "a=1, b=2") == ["a=1", "b=2"])
        #expect(SetCookieParser.values(in: "a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT, b=2; Expires=Thu, 22 Oct 2015 07:28:00 GMT; Secure")
            == ["a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT", "b=2; Expires=Thu, 22 Oct 2015 07:28:00 GMT; Secure"])
        #expect(SetCookieParser.values(in: "list=x,y, z") == ["list=x,y, z"])
    }
}
