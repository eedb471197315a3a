import CourierTesting
import Foundation
import Testing

@testable import Courier

/// The cookie step in the chain, over an in-memory transport (any host name, no sockets): each
/// redirect hop gets its own cookies and stores its own, the caller's own `Cookie` is kept,
/// retries carry the cookies once, logs hide them.
@Suite struct CookieStepTests {
    /// What the transport saw: each request's URL and `Cookie` fields.
    final class Wire: Sendable {
        private let seen = Locked<[(url: String, cookies: [String])]>([])
        func record(_ request: HTTPRequest) { seen.withLock { $0.append((request.url.absoluteString, request.headers.values(for: "Cookie"))) } }
        var requests: [(url: String, cookies: [String])] { seen.withLock { $0 } }
    }

    func cookieClient(
        _ wire: Wire, logger: CapturingLogger? = nil, retryPolicy: RetryPolicy = .never,
        answer: @escaping @Sendable (HTTPRequest) -> HTTPResponse
    ) -> APIClient {
        client(URL(string: "https://api.example.com")!, transport: InMemoryTransport { request in
            wire.record(request)
            return answer(request)
        }, retryPolicy: retryPolicy) {
            $0.cookies = .init()
            if let logger { $0.logging = .init(logger: logger, detail: .standard) }
        }
    }

    @Test("a redirect chain: each hop stores its Set-Cookie and gets only the cookies its own URL matches")
    func redirectHops() async throws {
        let wire = Wire()
        let api = cookieClient(wire) { request in
            switch request.url.absoluteString {
            case "https://api.example.com/login":
                HTTPResponse(status: 302, headers: HTTPHeaders([
                    ("Location", "https://auth.example.com/next"), ("Set-Cookie", "sid=abc123; Path=/"),
                    ("Set-Cookie", "wide=w1; Domain=example.com; Path=/"),
                ]))
            case "https://auth.example.com/next":
                HTTPResponse(status: 302, headers: HTTPHeaders([("Location", "https://other.org/done"), ("Set-Cookie", "auth=a1")]))
            case "https://other.org/done":
                HTTPResponse(status: 302, headers: ["Location": "https://api.example.com/home"])
            default:
                HTTPResponse(status: 200, body: Data("ok".utf8))
            }
        }
        var login = HTTPRequest(method: .get, url: URL(string: "https://api.example.com/login")!)
        login.headers["Cookie"] = "mine=m1"
        _ = try await api.data(for: login)
        let hops = wire.requests
        #expect(hops.map(\.url) == [
            "https://api.example.com/login", "https://auth.example.com/next", "https://other.org/done", "https://api.example.com/home",
        ])
        #expect(hops[0].cookies == ["mine=m1"])              // the caller's own, nothing stored yet
        #expect(hops[1].cookies == ["wide=w1"])              // another host of the domain: the Domain cookie only
        #expect(hops[2].cookies == [])                       // another site: none (the caller's dropped by the redirect rule)
        #expect(hops[3].cookies == ["sid=abc123; wide=w1"])  // back home: the host-only one too
        await api.shutdown()
    }

    @Test("the caller's own Cookie fields are kept, first, in the one Cookie field sent")
    func ownCookiesKept() async throws {
        let wire = Wire()
        let api = cookieClient(wire) { _ in HTTPResponse(status: 200, headers: ["Set-Cookie": "sid=abc123"]) }
        _ = try await api.data(for: HTTPRequest(method: .get, url: URL(string: "https://api.example.com/login")!))
        var request = HTTPRequest(method: .get, url: URL(string: "https://api.example.com/me")!)
        request.headers.add(name: "Cookie", value: "a=1")
        request.headers.add(name: "cookie", value: "b=2")
        _ = try await api.data(for: request)
        #expect(wire.requests.last?.cookies == ["a=1; b=2; sid=abc123"])
        await api.shutdown()
    }

    @Test("every Set-Cookie field of a response is stored, and so are fields a transport joined with ', '")
    func repeatedFields() async throws {
        let wire = Wire()
        let api = cookieClient(wire) { request in
            request.url.path == "/login"
                ? HTTPResponse(status: 200, headers: HTTPHeaders([
                    ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2; Expires=Wed, 21 Oct 2099 07:28:00 GMT, c=3; Path=/"),
                ]))
                : HTTPResponse(status: 200)
        }
        _ = try await api.data(for: HTTPRequest(method: .get, url: URL(string: "https://api.example.com/login")!))
        _ = try await api.data(for: HTTPRequest(method: .get, url: URL(string: "https://api.example.com/next")!))
        #expect(wire.requests.last?.cookies == ["a=1; b=2; c=3"])
        #expect(try await api.cookies.all().count == 3)
        await api.shutdown()
    }

    @Test("an error status's Set-Cookie is stored too, and each retry carries the cookies once")
    func errorStatusesAndRetries() async throws {
        let wire = Wire()
        let count = Locked(0)
        let retries = RetryPolicy(maxAttempts: 3, retryableStatusCodes: [503], backoff: .immediate)
        let api = cookieClient(wire, retryPolicy: retries) { _ in
            let attempt = count.withLock { $0 += 1; return $0 }
            return attempt == 1
                ? HTTPResponse(status: 503, headers: ["Set-Cookie": "lb=node7"])
                : HTTPResponse(status: 200)
        }
        _ = try await api.data(for: HTTPRequest(method: .get, url: URL(string: "https://api.example.com/x")!))
        #expect(wire.requests.map(\.cookies) == [[], ["lb=node7"]])
        await api.shutdown()
    }

    @Test("logs hide Cookie and Set-Cookie values; an ignored Set-Cookie is logged at debug with its reason")
    func logsHideCookies() async throws {
        let wire = Wire()
        let logger = CapturingLogger()
        let api = cookieClient(wire, logger: logger) { _ in
            HTTPResponse(status: 200, headers: HTTPHeaders([("Set-Cookie", "sid=abc123"), ("Set-Cookie", "bad=1; Domain=com")]))
        }
        _ = try await api.data(for: HTTPRequest(method: .get, url: URL(string: "https://api.example.com/a")!))
        _ = try await api.data(for: HTTPRequest(method: .get, url: URL(string: "https://api.example.com/b")!))
        #expect(wire.requests.last?.cookies == ["sid=abc123"])
        let logged = logger.lines.map { "\($0.message) \($0.metadata)" }.joined(separator: "\n")
        #expect(!logged.contains("abc123"))
        #expect(logger.lines("request").last?.metadata["headers"]?.contains("Cookie: <redacted>") == true)
        #expect(logger.lines("response").first?.metadata["headers"]?.contains("Set-Cookie: <redacted>") == true)
        let ignored = logger.lines("ignored a Set-Cookie")
        #expect(ignored.count == 2)   // once per response
        #expect(ignored.first?.level == .debug)
        #expect(ignored.first?.metadata["reason"] == "Domain=com is a public suffix")
        await api.shutdown()
    }

    @Test("a client without cookies configured sends none and keeps none")
    func offByDefault() async throws {
        let wire = Wire()
        let api = client(URL(string: "https://api.example.com")!, transport: InMemoryTransport { request in
            wire.record(request)
            return HTTPResponse(status: 200, headers: ["Set-Cookie": "sid=abc123"])
        })
        _ = try await api.data(for: HTTPRequest(method: .get, url: URL(string: "https://api.example.com/a")!))
        _ = try await api.data(for: HTTPRequest(method: .get, url: URL(string: "https://api.example.com/b")!))
        #expect(wire.requests.map(\.cookies) == [[], []])
        await api.shutdown()
    }

    @Test("200 concurrent responses setting cookies: each is kept, and the file holds every one for the next client")
    func concurrentResponsesReachTheFile() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let settings = CookieConfiguration(storageFile: directory.appendingPathComponent("cookies.sqlite"), maxCookiesPerDomain: 500)
        let transport = InMemoryTransport { request in
            let name = request.url.lastPathComponent
            return HTTPResponse(status: 200, headers: HTTPHeaders([("Set-Cookie", "\(name)=v; Max-Age=600; Path=/")]))
        }
        let first = client(URL(string: "https://api.example.com")!, transport: transport) { $0.cookies = settings }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let url = URL(string: "https://api.example.com/c\(index)")!
                    _ = try await first.data(for: HTTPRequest(method: .get, url: url))
                }
            }
            try await group.waitForAll()
        }
        #expect(try await first.cookies.all().count == 200)
        await first.shutdown()
        let second = client(URL(string: "https://api.example.com")!, transport: transport) { $0.cookies = settings }
        #expect(Set(try await second.cookies.all().map(\.name)) == Set((0..<200).map { "c\($0)" }))
        await second.shutdown()
    }
}
