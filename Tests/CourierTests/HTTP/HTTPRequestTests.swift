import Foundation
import Testing

@testable import Courier

@Suite struct HTTPRequestTests {

    @Test("defaults: GET, no headers, no body, transport's timeout")
    func requestDefaults() {
        let request = HTTPRequest(url: testURL("https://example.com/x"))
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
            method: .post, url: testURL(string), headers: ["Content-Type": "text/plain"],
            body: Data("hi".utf8), timeout: .seconds(5)
        )
        try request.validate()
    }

    @Test("a HEAD with a body, or a body and a body stream together, is refused")
    func bodiesThatCannotBeSent() {
        var head = HTTPRequest(method: .head, url: URL(string: "https://example.com/x")!, body: Data("x".utf8))
        #expect(throws: NetworkError.self) { try head.validate() }
        head.body = nil
        head.bodyStream = .data(Data("x".utf8))
        #expect(throws: NetworkError.self) { try head.validate() }
        head.bodyStream = nil
        #expect(throws: Never.self) { try head.validate() }
        var both = HTTPRequest(method: .post, url: URL(string: "https://example.com/x")!, body: Data("x".utf8))
        both.bodyStream = .data(Data("y".utf8))
        #expect(throws: NetworkError.self) { try both.validate() }
    }

    @Test("a known origin is used until the URL changes, then read from the new URL")
    func knownOriginFollowsTheURL() throws {
        var request = HTTPRequest(url: testURL("https://api.example.com/v1/users"))
        request.knownOrigin = HTTPOrigin("https://api.example.com")
        #expect(request.origin?.host == "api.example.com")
        request.url = testURL("http://other.example.org:8080/x")
        #expect(request.knownOrigin == nil)
        #expect(request.origin == HTTPOrigin("http://other.example.org:8080"))
        // A URL moved to another scheme after the origin was known is validated anew.
        request.url = testURL("ftp://api.example.com/file")
        #expect(throws: NetworkError.self) { try request.validate() }
    }

    @Test("a relative URL is validated as the absolute URL it resolves to")
    func relativeURL() throws {
        let relative = try #require(URL(string: "v1/users", relativeTo: testURL("https://example.com/api/")))
        try HTTPRequest(url: relative).validate()
    }

    @Test(
        "other schemes and URLs without a host are rejected as invalidURL",
        arguments: ["ftp://example.com/file", "file:///etc/passwd", "mailto:a@example.com", "https:///path", "//example.com/x", "/just/a/path", "ws://example.com/"]
    )
    func invalidURLs(string: String) throws {
        let request = HTTPRequest(url: testURL(string))
        _ = try #require(invalidURLMessage { () throws(NetworkError) in try request.validate() })
    }

    @Test("the URL error names the scheme but not the rest of the URL")
    func invalidURLMessageContent() throws {
        let request = HTTPRequest(url: testURL("ftp://user:hunter2@example.com/file?token=abc"))
        let message = try #require(invalidURLMessage { () throws(NetworkError) in try request.validate() })
        #expect(message.contains("ftp"))
        #expect(!message.contains("hunter2") && !message.contains("token"))
    }

    @Test("an invalid header makes the request invalid")
    func invalidHeader() throws {
        let request = HTTPRequest(url: testURL("https://example.com"), headers: ["X-Evil": "a\r\nb"])
        let message = try #require(invalidRequestMessage { () throws(NetworkError) in try request.validate() })
        #expect(message.contains("X-Evil"))
    }

    @Test("a method that is not a token is rejected", arguments: ["GET /admin", "GET\r\nX", "", "GÉT"])
    func invalidMethod(method: String) throws {
        let request = HTTPRequest(method: HTTPMethod(rawValue: method), url: testURL("https://example.com"))
        _ = try #require(invalidRequestMessage { () throws(NetworkError) in try request.validate() })
    }

    @Test("a custom token method is fine")
    func customMethod() throws {
        try HTTPRequest(method: "propfind", url: testURL("https://example.com")).validate()
    }

    @Test("a zero or negative timeout is rejected", arguments: [Duration.zero, .milliseconds(-1)])
    func invalidTimeout(timeout: Duration) throws {
        let request = HTTPRequest(url: testURL("https://example.com"), timeout: timeout)
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
