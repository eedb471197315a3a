import Foundation
import Testing

@testable import Courier

// MARK: - Helpers

/// Runs `body` and returns the `NetworkError` it threw, or nil if it returned.
private func thrownError<T>(_ body: () throws(NetworkError) -> T) -> NetworkError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

/// The message of the `.invalidRequest` thrown by `body`; records an issue if it threw
/// anything else or nothing.
private func invalidRequestMessage<T>(
    _ body: () throws(NetworkError) -> T, sourceLocation: SourceLocation = #_sourceLocation
) -> String? {
    switch thrownError(body) {
    case .invalidRequest(let message)?:
        return message
    case let other:
        Issue.record("expected .invalidRequest, got \(String(describing: other))", sourceLocation: sourceLocation)
        return nil
    }
}

/// The message of the `.invalidURL` thrown by `body`; records an issue if it threw anything
/// else or nothing.
private func invalidURLMessage<T>(
    _ body: () throws(NetworkError) -> T, sourceLocation: SourceLocation = #_sourceLocation
) -> String? {
    switch thrownError(body) {
    case .invalidURL(let message)?:
        return message
    case let other:
        Issue.record("expected .invalidURL, got \(String(describing: other))", sourceLocation: sourceLocation)
        return nil
    }
}

private func url(_ string: String) -> URL {
    guard let url = URL(string: string) else { fatalError("bad test URL \(string)") }
    return url
}

/// The path of `url` as URLComponents decodes it, and its segments decoded one by one (split on
/// the encoded path, so an encoded `%2F` would show up as a `/` inside a segment).
private func decodedPath(_ url: URL) -> (path: String, segments: [String])? {
    guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
    let segments = components.percentEncodedPath
        .split(separator: "/", omittingEmptySubsequences: false)
        .dropFirst() // before the leading "/"
        .map { $0.removingPercentEncoding ?? "<undecodable>" }
    return (components.path, Array(segments))
}

/// Tests of Courier's HTTP value types: headers, methods, requests, responses, URL building.
/// (Nested suites, so `--filter HTTPTypesTests` selects them all.)
@Suite("HTTP types")
enum HTTPTypesTests {}

// MARK: - HTTPHeaders

extension HTTPTypesTests {
    @Suite("HTTPHeaders")
    struct Headers {

        @Test("lookup ignores ASCII case; names keep the case they were given")
        func caseInsensitiveLookup() {
            let headers: HTTPHeaders = ["Content-Type": "application/json", "X-Request-ID": "42"]
            #expect(headers["content-type"] == "application/json")
            #expect(headers["CONTENT-TYPE"] == "application/json")
            #expect(headers["x-request-id"] == "42")
            #expect(headers["Content-Length"] == nil)
            #expect(headers["Content-Typ"] == nil)
            #expect(headers["Content-Typee"] == nil)
            #expect(headers.contains("X-REQUEST-id"))
            #expect(!headers.contains("X-Request"))
            #expect(headers.map(\.name) == ["Content-Type", "X-Request-ID"])
        }

        @Test("non-ASCII letters are not case-folded in names")
        func onlyASCIICaseFolding() {
            let headers: HTTPHeaders = ["X-É": "1"]
            #expect(headers["x-É"] == "1")
            #expect(headers["x-é"] == nil)
        }

        @Test("fields keep insertion order; repeated names give multiple values")
        func orderAndMultipleValues() {
            var headers = HTTPHeaders()
            #expect(headers.isEmpty)
            headers.add(name: "Accept", value: "application/json")
            headers.add(name: "X-One", value: "1")
            headers.add(name: "accept", value: "text/plain")
            headers.add(name: "X-Two", value: "2")
            headers.add(name: "ACCEPT", value: "*/*")

            #expect(headers.count == 5)
            #expect(!headers.isEmpty)
            #expect(headers["Accept"] == "application/json")
            #expect(headers.values(for: "accept") == ["application/json", "text/plain", "*/*"])
            #expect(headers.values(for: "X-Missing") == [])
            #expect(headers.map(\.name) == ["Accept", "X-One", "accept", "X-Two", "ACCEPT"])
            #expect(Array(headers).map(\.value) == ["application/json", "1", "text/plain", "2", "*/*"])
        }

        @Test("the array and dictionary-literal initializers keep order and repeated names")
        func initializers() {
            let literal: HTTPHeaders = ["B": "1", "A": "2", "b": "3"]
            #expect(literal.map(\.name) == ["B", "A", "b"])
            #expect(literal.values(for: "B") == ["1", "3"])

            let fromArray = HTTPHeaders([("B", "1"), ("A", "2"), ("b", "3")])
            #expect(Array(fromArray) == Array(literal))
            #expect(HTTPHeaders().count == 0)
            let empty: HTTPHeaders = [:]
            #expect(empty.isEmpty)
        }

        @Test("replaceOrAdd and the subscript setter replace every field of the name in place")
        func replace() {
            var headers: HTTPHeaders = ["A": "1", "Cookie": "x=1", "B": "2", "cookie": "y=2", "C": "3"]
            headers.replaceOrAdd(name: "COOKIE", value: "z=3")
            #expect(headers.map(\.name) == ["A", "COOKIE", "B", "C"])
            #expect(headers.values(for: "cookie") == ["z=3"])

            headers["b"] = "20"
            #expect(headers.map(\.name) == ["A", "COOKIE", "b", "C"])
            #expect(headers["B"] == "20")

            headers["D"] = "4"
            headers.replaceOrAdd(name: "E", value: "5")
            #expect(headers.map(\.name) == ["A", "COOKIE", "b", "C", "D", "E"])
            #expect(headers.map(\.value) == ["1", "z=3", "20", "3", "4", "5"])
        }

        @Test("remove and a nil subscript assignment delete every field of the name")
        func remove() {
            var headers: HTTPHeaders = ["A": "1", "X": "a", "B": "2", "x": "b"]
            headers.remove(name: "X")
            #expect(headers.map(\.name) == ["A", "B"])
            headers["a"] = nil
            #expect(headers.map(\.name) == ["B"])
            headers.remove(name: "missing")
            headers["missing"] = nil
            #expect(headers.count == 1)
        }

        @Test("equality: names ignore case, values do not, order only matters within a name")
        func equality() {
            let base: HTTPHeaders = ["Accept": "a", "X-Id": "1", "accept": "b"]
            #expect(base == ["ACCEPT": "a", "x-id": "1", "Accept": "b"])
            #expect(base == ["X-Id": "1", "Accept": "a", "Accept": "b"])
            #expect(base != ["Accept": "b", "X-Id": "1", "Accept": "a"])
            #expect(base != ["Accept": "a", "X-Id": "1"])
            #expect(base != ["Accept": "a", "X-Id": "1", "accept": "B"])
            #expect(base != ["Accept": "a", "X-Id": "1", "X-Other": "b"])
            #expect(HTTPHeaders() == [:])

            let field = HTTPHeaders.Field(name: "Content-Type", value: "text/plain")
            let sameIgnoringCase = HTTPHeaders.Field(name: "content-TYPE", value: "text/plain")
            #expect(field == sameIgnoringCase)
            #expect(field.hashValue == sameIgnoringCase.hashValue)
            #expect(Set([field, sameIgnoringCase]).count == 1)
            #expect(field != HTTPHeaders.Field(name: "Content-Type", value: "TEXT/PLAIN"))
        }

        @Test("valid names (every tchar) and values (with tabs, spaces, UTF-8) pass validation")
        func validHeaders() throws {
            let headers: HTTPHeaders = [
                "Content-Type": "application/json; charset=utf-8",
                "X-Custom_Header.v2": "a\tb c",
                "!#$%&'*+-.^_`|~09azAZ": "value",
                "X-Empty": "",
                "X-Unicode": "café 😀 日本",
            ]
            try headers.validate()
            try HTTPHeaders().validate()
        }

        /// A value that a caller might not want in any log.
        static let secret = "s3cr3t-t0ken"

        @Test(
            "a CR, LF, CRLF or NUL in a value is rejected, naming the header and not echoing the value",
            arguments: [
                "Bearer \(secret)\r",
                "Bearer \(secret)\nX-Evil: 1",
                "Bearer \(secret)\r\nX-Evil: 1",
                "Bearer \(secret)\r\n\r\nGET /admin HTTP/1.1",
                "Bearer \(secret)\0",
                "\n\(secret)",
            ]
        )
        func injectionInValue(value: String) throws {
            let headers: HTTPHeaders = ["Accept": "*/*", "Authorization": value]
            let message = try #require(invalidRequestMessage { () throws(NetworkError) in try headers.validate() })
            #expect(message.contains("Authorization"))
            #expect(!message.contains(Self.secret))
            #expect(!message.contains("X-Evil"))
            #expect(!message.contains("admin"))
            #expect(!message.contains("\r") && !message.contains("\n") && !message.contains("\0"))
        }

        @Test(
            "a name that is not an RFC 9110 token is rejected, naming it escaped",
            arguments: [
                ("X-A\r\nX-Evil", #"X-A\r\nX-Evil"#),
                ("X-A\r", #"X-A\r"#),
                ("X-A\n", #"X-A\n"#),
                ("X-A\0", #"X-A\0"#),
                ("X A", "X A"),
                ("X-A:", "X-A:"),
                ("X(A)", "X(A)"),
                ("X@A", "X@A"),
                ("X\"A", #"X\"A"#),
                ("X-É", "X-É"),
                ("X\tA", #"X\tA"#),
            ]
        )
        func invalidName(name: String, escaped: String) throws {
            let headers: HTTPHeaders = ["Accept": "*/*", name: "fine"]
            let message = try #require(invalidRequestMessage { () throws(NetworkError) in try headers.validate() })
            #expect(message.contains(escaped), "message: \(message)")
            #expect(!message.contains("\r") && !message.contains("\n") && !message.contains("\0"))
        }

        @Test("an empty name is rejected")
        func emptyName() throws {
            let headers: HTTPHeaders = ["": "value"]
            let message = try #require(invalidRequestMessage { () throws(NetworkError) in try headers.validate() })
            #expect(message.contains("empty"))
        }

        @Test("a very long invalid name is cut short in the message")
        func longInvalidName() throws {
            let name = String(repeating: "N", count: 500) + " "
            let headers: HTTPHeaders = [name: "value"]
            let message = try #require(invalidRequestMessage { () throws(NetworkError) in try headers.validate() })
            #expect(message.count < 200)
        }
    }
}

// MARK: - HTTPMethod

extension HTTPTypesTests {
    @Suite("HTTPMethod")
    struct Method {

        @Test("raw values are ASCII-uppercased; literals and statics agree")
        func uppercasing() {
            #expect(HTTPMethod(rawValue: "get") == .get)
            #expect(HTTPMethod(rawValue: "pAtCh").rawValue == "PATCH")
            let purge: HTTPMethod = "purge"
            #expect(purge.rawValue == "PURGE")
            #expect(purge.description == "PURGE")
            #expect(HTTPMethod(rawValue: "straße").rawValue == "STRAßE") // only ASCII letters change
            #expect(
                [HTTPMethod.get, .head, .post, .put, .patch, .delete, .options].map(\.rawValue)
                    == ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
            )
            #expect(Set<HTTPMethod>(["get", "GET", .get]).count == 1)
        }

        @Test(
            "idempotency follows RFC 9110 §9.2.2",
            arguments: [
                ("GET", true), ("head", true), ("OPTIONS", true), ("TRACE", true), ("PUT", true),
                ("DELETE", true), ("POST", false), ("PATCH", false), ("CONNECT", false), ("PURGE", false),
            ]
        )
        func idempotency(method: String, idempotent: Bool) {
            #expect(HTTPMethod(rawValue: method).isIdempotent == idempotent)
        }
    }
}

// MARK: - HTTPRequest and HTTPResponse

extension HTTPTypesTests {
    @Suite("HTTPRequest and HTTPResponse")
    struct RequestResponse {

        @Test("defaults: GET, no headers, no body, transport's timeout")
        func requestDefaults() {
            let request = HTTPRequest(url: url("https://example.com/x"))
            #expect(request.method == .get)
            #expect(request.headers.isEmpty)
            #expect(request.body == nil)
            #expect(request.timeout == nil)
        }

        @Test(
            "http and https URLs with a host are valid, whatever the case of the scheme",
            arguments: [
                "http://example.com", "https://example.com/a?b=c", "HTTPS://Example.COM/",
                "Http://127.0.0.1:8080/x", "https://[::1]:8443/", "https://user:pw@example.com/",
            ]
        )
        func validURLs(string: String) throws {
            let request = HTTPRequest(
                method: .post, url: url(string), headers: ["Content-Type": "text/plain"],
                body: Data("hi".utf8), timeout: .seconds(5)
            )
            try request.validate()
        }

        @Test("a relative URL is validated as the absolute URL it resolves to")
        func relativeURL() throws {
            let relative = try #require(URL(string: "v1/users", relativeTo: url("https://example.com/api/")))
            try HTTPRequest(url: relative).validate()
        }

        @Test(
            "other schemes and URLs without a host are rejected as invalidURL",
            arguments: ["ftp://example.com/file", "file:///etc/passwd", "mailto:a@example.com", "https:///path", "//example.com/x", "/just/a/path", "ws://example.com/"]
        )
        func invalidURLs(string: String) throws {
            let request = HTTPRequest(url: url(string))
            _ = try #require(invalidURLMessage { () throws(NetworkError) in try request.validate() })
        }

        @Test("the URL error names the scheme but not the rest of the URL")
        func invalidURLMessageContent() throws {
            let request = HTTPRequest(url: url("ftp://user:hunter2@example.com/file?token=abc"))
            let message = try #require(invalidURLMessage { () throws(NetworkError) in try request.validate() })
            #expect(message.contains("ftp"))
            #expect(!message.contains("hunter2") && !message.contains("token"))
        }

        @Test("an invalid header makes the request invalid")
        func invalidHeader() throws {
            let request = HTTPRequest(url: url("https://example.com"), headers: ["X-Evil": "a\r\nb"])
            let message = try #require(invalidRequestMessage { () throws(NetworkError) in try request.validate() })
            #expect(message.contains("X-Evil"))
        }

        @Test("a method that is not a token is rejected", arguments: ["GET /admin", "GET\r\nX", "", "GÉT"])
        func invalidMethod(method: String) throws {
            let request = HTTPRequest(method: HTTPMethod(rawValue: method), url: url("https://example.com"))
            _ = try #require(invalidRequestMessage { () throws(NetworkError) in try request.validate() })
        }

        @Test("a custom token method is fine")
        func customMethod() throws {
            try HTTPRequest(method: "propfind", url: url("https://example.com")).validate()
        }

        @Test("a zero or negative timeout is rejected", arguments: [Duration.zero, .milliseconds(-1)])
        func invalidTimeout(timeout: Duration) throws {
            let request = HTTPRequest(url: url("https://example.com"), timeout: timeout)
            _ = try #require(invalidRequestMessage { () throws(NetworkError) in try request.validate() })
        }

        @Test("isSuccess is exactly 200..<300; defaults are no headers and an empty body")
        func response() {
            #expect(!HTTPResponse(status: 199).isSuccess)
            #expect(HTTPResponse(status: 200).isSuccess)
            #expect(HTTPResponse(status: 204).isSuccess)
            #expect(HTTPResponse(status: 299).isSuccess)
            #expect(!HTTPResponse(status: 300).isSuccess)
            #expect(!HTTPResponse(status: 404).isSuccess)
            let response = HTTPResponse(status: 200)
            #expect(response.headers.isEmpty)
            #expect(response.body.isEmpty)
            let full = HTTPResponse(status: 201, headers: ["Location": "/x"], body: Data("ok".utf8))
            #expect(full.headers["location"] == "/x")
            #expect(full.body == Data("ok".utf8))
        }
    }
}

// MARK: - URLBuilder

extension HTTPTypesTests {
    @Suite("URLBuilder")
    struct URLBuilding {

        private func build(_ base: String, _ path: String, _ query: [URLQueryItem] = []) throws -> URL {
            try URLBuilder.url(base: url(base), path: path, query: query)
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
                try URLBuilder.url(base: url("https://h/api/"), path: path)
            })
            #expect(message.contains(".."))
        }

        @Test(
            "control characters in the path throw",
            arguments: ["a\rb", "a\nb", "a\r\nHost: evil", "a\0b", "a\tb", "\u{7F}", "a\u{85}b", "\u{1B}[31m"]
        )
        func controlCharacters(path: String) throws {
            let message = try #require(invalidURLMessage { () throws(NetworkError) in
                try URLBuilder.url(base: url("https://h/api"), path: path)
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
            let base = try #require(URL(string: "v1/", relativeTo: url("https://h/api/")))
            let built = try URLBuilder.url(base: base, path: "x")
            #expect(built.absoluteString == "https://h/api/v1/x")
        }

        @Test("a base with a fragment throws, even an empty one", arguments: ["https://h/api#top", "https://h/api#", "https://h/api?x=1#f"])
        func baseWithFragment(base: String) throws {
            let message = try #require(invalidURLMessage { () throws(NetworkError) in
                try URLBuilder.url(base: url(base), path: "x")
            })
            #expect(message.contains("fragment"))
        }

        @Test(
            "a non-http(s) base or one without a host throws",
            arguments: ["ftp://h/x", "file:///tmp/", "mailto:a@h", "ws://h/", "https:///x", "https:", "/relative/only", "//h/x"]
        )
        func badBase(base: String) throws {
            _ = try #require(invalidURLMessage { () throws(NetworkError) in
                try URLBuilder.url(base: url(base), path: "x")
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
    }
}
