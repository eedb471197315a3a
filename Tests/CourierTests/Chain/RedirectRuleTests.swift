import Foundation
import Testing

@testable import Courier

@Suite struct RedirectRuleTests {
    private let body = Data(#"{"total":42}"#.utf8)

    private func post(_ url: String = "https://api.example.com/v1/orders") -> HTTPRequest {
        HTTPRequest(
            method: .post, url: testURL(url),
            headers: ["Content-Type": "application/json", "Authorization": "Bearer t", "Cookie": "sid=1",
                      "Proxy-Authorization": "Basic p", "Idempotency-Key": "k1"],
            body: body)
    }

    private func next(_ request: HTTPRequest, _ status: Int, _ location: String?) -> RedirectRule.Step {
        RedirectRule.next(after: request, response: HTTPResponse(status: status, headers: location.map { ["Location": $0] } ?? [:]))
    }

    private func followed(
        _ step: RedirectRule.Step, sourceLocation: SourceLocation = #_sourceLocation
    ) -> HTTPRequest? {
        guard case .follow(let request) = step else {
            Issue.record("expected .follow, got \(step)", sourceLocation: sourceLocation)
            return nil
        }
        return request
    }

    @Test("307 and 308 keep the method and the body", arguments: [307, 308])
    func temporaryAndPermanentRedirectsKeepTheMethodAndTheBody(status: Int) throws {
        let request = try #require(followed(next(post(), status, "/v2/orders")))
        #expect(request.method == .post)
        #expect(request.body == body)
        #expect(request.headers["Content-Type"] == "application/json")
        #expect(request.url.absoluteString == "https://api.example.com/v2/orders")
    }

    @Test("301, 302 and 303 turn a write into a GET without a body", arguments: [301, 302, 303])
    func seeOtherAndFriendsTurnAWriteIntoAGetWithoutABody(status: Int) throws {
        let request = try #require(followed(next(post(), status, "/v1/orders/9")))
        #expect(request.method == .get)
        #expect(request.body == nil)
        #expect(!request.headers.contains("Content-Type"))
        #expect(request.headers["Idempotency-Key"] == "k1")
    }

    @Test("a HEAD stays a HEAD")
    func aHeadStaysAHead() throws {
        let head = HTTPRequest(method: .head, url: testURL("https://api.example.com/a"))
        #expect(try #require(followed(next(head, 303, "/b"))).method == .head)
    }

    @Test("a relative Location is resolved against the request's URL")
    func aRelativeLocationIsResolvedAgainstTheRequestsURL() throws {
        let request = HTTPRequest(url: testURL("https://api.example.com/v1/users/42?x=1"))
        #expect(try #require(followed(next(request, 302, "43"))).url.absoluteString == "https://api.example.com/v1/users/43")
        #expect(try #require(followed(next(request, 302, "../teams"))).url.absoluteString == "https://api.example.com/v1/teams")
        #expect(try #require(followed(next(request, 302, "/login?next=1"))).url.absoluteString == "https://api.example.com/login?next=1")
        #expect(try #require(followed(next(request, 302, "//cdn.example.com/a"))).url.absoluteString == "https://cdn.example.com/a")
    }

    @Test("a hop to another origin drops the credentials")
    func aHopToAnotherOriginDropsTheCredentials() throws {
        for target in ["https://cdn.example.com/x", "https://api.example.com:8443/x", "http://localhost/x"] {
            let request = try #require(followed(next(post("http://localhost:8080/a"), 307,
                target.replacingOccurrences(of: "https://api.example.com:8443", with: "http://localhost:9090"))))
            #expect(!request.headers.contains("Authorization"), "\(target)")
            #expect(!request.headers.contains("Proxy-Authorization"), "\(target)")
            #expect(!request.headers.contains("Cookie"), "\(target)")
            #expect(request.headers["Idempotency-Key"] == "k1")
        }
        let elsewhere = try #require(followed(next(post(), 308, "https://other.example.com/orders")))
        #expect(!elsewhere.headers.contains("Authorization"))
    }

    @Test("a hop within the origin keeps the credentials, default port or not")
    func aHopWithinTheOriginKeepsTheCredentialsDefaultPortOrNot() throws {
        for target in ["/v2/orders", "https://API.example.com/v2", "https://api.example.com:443/v2"] {
            let request = try #require(followed(next(post(), 307, target)))
            #expect(request.headers["Authorization"] == "Bearer t", "\(target)")
            #expect(request.headers["Cookie"] == "sid=1", "\(target)")
        }
    }

    @Test("leaving HTTPS, or HTTP altogether, is refused")
    func leavingHTTPSOrHTTPAltogetherIsRefused() {
        for target in ["http://api.example.com/x", "ftp://api.example.com/x", "file:///etc/passwd", "javascript:alert(1)"] {
            guard case .refuse(.securityError) = next(post(), 302, target) else {
                Issue.record("\(target) should be refused")
                continue
            }
        }
    }

    @Test("a Location that is not a URL is an invalid response")
    func aLocationThatIsNotAURLIsAnInvalidResponse() {
        guard case .refuse(.invalidResponse) = next(post(), 302, "http://[::1") else {
            Issue.record("an unparseable Location should be refused")
            return
        }
    }

    @Test("other statuses and a missing Location are final")
    func otherStatusesAndAMissingLocationAreFinal() {
        for status in [200, 300, 304, 305, 404] {
            guard case .final = next(post(), status, "/elsewhere") else { Issue.record("\(status)"); continue }
        }
        guard case .final = next(post(), 302, nil) else { Issue.record("no Location"); return }
    }
}
