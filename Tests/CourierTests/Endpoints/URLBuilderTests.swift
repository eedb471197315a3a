import Foundation
import Testing

@testable import Courier

@Suite struct URLBuilderTests {

    private func build(_ base: String, _ path: String, _ query: [URLQueryItem] = []) throws -> URL {
        try URLBuilder.url(base: testURL(base), path: path, query: query)
    }

    /// Builds, checks the exact string, and checks that the decoded path round-trips to the
    /// expected segments.
    private func expectBuilt(
        _ base: String, _ path: String, _ query: [URLQueryItem] = [],
        is expected: String, segments: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let built = try build(base, path, query)
        #expect(built.absoluteString == expected, sourceLocation: sourceLocation)
        let decoded = try #require(decodedPath(built), sourceLocation: sourceLocation)
        #expect(decoded.segments == segments, sourceLocation: sourceLocation)
        let expectedPath = segments.isEmpty ? "" : "/" + segments.joined(separator: "/")
        #expect(decoded.path == expectedPath, sourceLocation: sourceLocation)
    }

    @Test("the path is joined with exactly one slash whatever the base and path slashes")
    func slashes() throws {
        for base in ["https://h/api", "https://h/api/", "https://h/api//"] {
            for path in ["users/42", "/users/42", "//users//42", "users///42"] {
                try expectBuilt(base, path, is: "https://h/api/users/42", segments: ["api", "users", "42"])
            }
        }
        for base in ["https://h", "https://h/"] {
            try expectBuilt(base, "/users/42", is: "https://h/users/42", segments: ["users", "42"])
        }
        try expectBuilt("https://h/a/b/", "c", is: "https://h/a/b/c", segments: ["a", "b", "c"])
    }

    @Test("a trailing slash in the path is kept, once")
    func trailingSlash() throws {
        try expectBuilt("https://h/api", "users/", is: "https://h/api/users/", segments: ["api", "users", ""])
        try expectBuilt("https://h/api/", "/users///", is: "https://h/api/users/", segments: ["api", "users", ""])
    }

    @Test("an empty path, or only slashes, gives the base itself")
    func emptyPath() throws {
        for path in ["", "/", "///"] {
            try expectBuilt("https://h/api", path, is: "https://h/api", segments: ["api"])
            try expectBuilt("https://h/api/", path, is: "https://h/api/", segments: ["api", ""])
            try expectBuilt("https://h", path, is: "https://h", segments: [])
            try expectBuilt("https://h/", path, is: "https://h/", segments: [""])
        }
        try expectBuilt(
            "https://h/api", "", [URLQueryItem(name: "a", value: "1")],
            is: "https://h/api?a=1", segments: ["api"]
        )
    }

    @Test("reserved characters in a segment are encoded: space ? # % / :")
    func reservedCharacters() throws {
        try expectBuilt("https://h/api", "users/a b?x", is: "https://h/api/users/a%20b%3Fx", segments: ["api", "users", "a b?x"])
        try expectBuilt("https://h", "a#b", is: "https://h/a%23b", segments: ["a#b"])
        try expectBuilt("https://h", "100%", is: "https://h/100%25", segments: ["100%"])
        try expectBuilt("https://h", "%2F%41", is: "https://h/%252F%2541", segments: ["%2F%41"])
        try expectBuilt("https://h", "a:b@c", is: "https://h/a%3Ab%40c", segments: ["a:b@c"])
        try expectBuilt("https://h", "a+b;c", is: "https://h/a%2Bb%3Bc", segments: ["a+b;c"])
        try expectBuilt("https://h", "[x]{y}<z>|\\^`\"", is: "https://h/%5Bx%5D%7By%7D%3Cz%3E%7C%5C%5E%60%22", segments: ["[x]{y}<z>|\\^`\""])
    }

    @Test("unreserved characters and safe sub-delimiters are left as they are")
    func unreservedAndSubDelims() throws {
        try expectBuilt("https://h", "AZaz09-._~", is: "https://h/AZaz09-._~", segments: ["AZaz09-._~"])
        try expectBuilt("https://h", "a!$&'()*,=b", is: "https://h/a!$&'()*,=b", segments: ["a!$&'()*,=b"])
        try expectBuilt("https://h", ".well-known/...", is: "https://h/.well-known/...", segments: [".well-known", "..."])
    }

    @Test("non-ASCII text is percent-encoded as UTF-8")
    func unicode() throws {
        try expectBuilt("https://h/api", "café", is: "https://h/api/caf%C3%A9", segments: ["api", "café"])
        try expectBuilt("https://h", "😀/👍🏽", is: "https://h/%F0%9F%98%80/%F0%9F%91%8D%F0%9F%8F%BD", segments: ["😀", "👍🏽"])
        try expectBuilt("https://h", "日本語/東京", is: "https://h/%E6%97%A5%E6%9C%AC%E8%AA%9E/%E6%9D%B1%E4%BA%AC", segments: ["日本語", "東京"])
        // Decomposed é (e + U+0301) is kept decomposed, byte for byte.
        try expectBuilt("https://h", "cafe\u{301}", is: "https://h/cafe%CC%81", segments: ["cafe\u{301}"])
        // A slash followed by a combining mark is one Character but still a separator.
        try expectBuilt("https://h", "a/\u{301}b", is: "https://h/a/%CC%81b", segments: ["a", "\u{301}b"])
    }

    @Test(
        "dot segments throw instead of escaping the base path",
        arguments: [".", "..", "a/..", "../a", "a/../b", "./a", "a/.", "a//..//b", "/../../etc/passwd"]
    )
    func dotSegments(path: String) throws {
        let message = try #require(invalidURLMessage { () throws(NetworkError) in
            try URLBuilder.url(base: testURL("https://h/api/"), path: path)
        })
        #expect(message.contains(".."))
    }

    @Test(
        "control characters in the path throw",
        arguments: ["a\rb", "a\nb", "a\r\nHost: evil", "a\0b", "a\tb", "\u{7F}", "a\u{85}b", "\u{1B}[31m"]
    )
    func controlCharacters(path: String) throws {
        let message = try #require(invalidURLMessage { () throws(NetworkError) in
            try URLBuilder.url(base: testURL("https://h/api"), path: path)
        })
        #expect(message.contains("control character"))
        #expect(!message.contains("\r") && !message.contains("\n"))
    }

    @Test("query names and values are encoded with the unreserved set only")
    func queryEncoding() throws {
        let query = [
            URLQueryItem(name: "q", value: "a+b"),
            URLQueryItem(name: "x", value: "1&y=2"),
            URLQueryItem(name: "s", value: "a b"),
            URLQueryItem(name: "semi", value: "a;b,c/d?e#f%g"),
            URLQueryItem(name: "u", value: "café 😀 日本"),
            URLQueryItem(name: "key with space&=", value: "v"),
            URLQueryItem(name: "keep", value: "AZaz09-._~"),
        ]
        let built = try build("https://h/api", "search", query)
        #expect(built.absoluteString == "https://h/api/search"
            + "?q=a%2Bb&x=1%26y%3D2&s=a%20b&semi=a%3Bb%2Cc%2Fd%3Fe%23f%25g"
            + "&u=caf%C3%A9%20%F0%9F%98%80%20%E6%97%A5%E6%9C%AC"
            + "&key%20with%20space%26%3D=v&keep=AZaz09-._~")
        // URLComponents decodes them back to exactly what was given, `+` included.
        let components = try #require(URLComponents(url: built, resolvingAgainstBaseURL: false))
        #expect(components.queryItems == query)
        #expect(components.path == "/api/search")
    }

    @Test("a nil value gives the name alone; an empty value gives name=; order is kept")
    func nilAndEmptyValues() throws {
        let query = [
            URLQueryItem(name: "z", value: "1"), URLQueryItem(name: "flag", value: nil),
            URLQueryItem(name: "empty", value: ""), URLQueryItem(name: "a", value: "2"),
            URLQueryItem(name: "z", value: "3"),
        ]
        let built = try build("https://h", "x", query)
        #expect(built.absoluteString == "https://h/x?z=1&flag&empty=&a=2&z=3")
        #expect(URLComponents(url: built, resolvingAgainstBaseURL: false)?.queryItems == query)
    }

    @Test("no query items adds no ?")
    func noQuery() throws {
        #expect(try build("https://h/api", "x", []).absoluteString == "https://h/api/x")
        #expect(try build("https://h/api", "x", []).query == nil)
    }

    @Test("a query on the base is kept, with the new items after it")
    func baseQuery() throws {
        let page = [URLQueryItem(name: "page", value: "2")]
        try expectBuilt("https://h/api?key=k%2B1", "users", page, is: "https://h/api/users?key=k%2B1&page=2", segments: ["api", "users"])
        try expectBuilt("https://h/api/?key=1", "users", [], is: "https://h/api/users?key=1", segments: ["api", "users"])
        try expectBuilt("https://h/api?key=1&", "users", page, is: "https://h/api/users?key=1&page=2", segments: ["api", "users"])
        try expectBuilt("https://h/api?", "users", page, is: "https://h/api/users?page=2", segments: ["api", "users"])
        try expectBuilt("https://h?key=1", "", page, is: "https://h?key=1&page=2", segments: [])
    }

    @Test("port, user info and an encoded base path are kept as written")
    func baseKeptAsWritten() throws {
        try expectBuilt("https://u:p@h:8443/my%20api/", "x", is: "https://u:p@h:8443/my%20api/x", segments: ["my api", "x"])
        try expectBuilt("HTTP://Example.COM/API", "x", is: "HTTP://Example.COM/API/x", segments: ["API", "x"])
        try expectBuilt("http://[::1]:8080", "x", is: "http://[::1]:8080/x", segments: ["x"])
    }

    @Test("a relative base URL is resolved first")
    func relativeBase() throws {
        let base = try #require(URL(string: "v1/", relativeTo: testURL("https://h/api/")))
        let built = try URLBuilder.url(base: base, path: "x")
        #expect(built.absoluteString == "https://h/api/v1/x")
    }

    @Test("a base with a fragment throws, even an empty one", arguments: ["https://h/api#top", "https://h/api#", "https://h/api?x=1#f"])
    func baseWithFragment(base: String) throws {
        let message = try #require(invalidURLMessage { () throws(NetworkError) in
            try URLBuilder.url(base: testURL(base), path: "x")
        })
        #expect(message.contains("fragment"))
    }

    @Test(
        "a non-http(s) base or one without a host throws",
        arguments: ["ftp://h/x", "file:///tmp/", "mailto:a@h", "ws://h/", "https:///x", "https:", "/relative/only", "//h/x"]
    )
    func badBase(base: String) throws {
        _ = try #require(invalidURLMessage { () throws(NetworkError) in
            try URLBuilder.url(base: testURL(base), path: "x")
        })
    }

    @Test("a file URL base throws")
    func fileBase() throws {
        _ = try #require(invalidURLMessage { () throws(NetworkError) in
            try URLBuilder.url(base: URL(fileURLWithPath: "/tmp"), path: "x")
        })
    }

    @Test("built URLs pass HTTPRequest validation")
    func builtURLsAreValidRequests() throws {
        let built = try build("https://h/api/", "users/José/posts", [URLQueryItem(name: "q", value: "a b")])
        try HTTPRequest(url: built).validate()
    }

    @Test("segments are encoded whole, a slash included")
    func segmentsAreEncodedWholeASlashIncluded() throws {
        let url = try URLBuilder.url(base: testURL("https://h/api"), segments: ["files", "a/b c", "%2F"], trailingSlash: true)
        #expect(url.absoluteString == "https://h/api/files/a%2Fb%20c/%252F/")
    }

    @Test("an empty, dot or dot-dot segment is refused", arguments: ["", ".", ".."])
    func anEmptyDotOrDotDotSegmentIsRefused(segment: String) {
        #expect(invalidURLMessage { () throws(NetworkError) in
            try URLBuilder.url(base: testURL("https://h/api"), segments: ["files", segment])
        } != nil)
    }

    @Test("a segment after one that needs encoding is still checked (plain segments are joined in one pass)")
    func aSegmentAfterOneThatNeedsEncodingIsStillChecked() throws {
        let url = try URLBuilder.url(base: testURL("https://h/api"), segments: ["a", "b c", "d"])
        #expect(url.absoluteString == "https://h/api/a/b%20c/d")
        #expect(invalidURLMessage { () throws(NetworkError) in
            try URLBuilder.url(base: testURL("https://h/api"), segments: ["a", "b c", ".."])
        } != nil)
        #expect(try URLBuilder.url(base: testURL("https://h/api/"), segments: ["v1", "users", "42"]).absoluteString == "https://h/api/v1/users/42")
    }
}
