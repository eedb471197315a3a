import CourierTesting
import Foundation
import Testing

@testable import Courier

/// `client.cookies` and the store against real servers on loopback: the scripted server (what
/// it received on the wire) and httpbin's `/cookies/*` (what a real server makes of them).
@Suite(.timeLimit(.minutes(5))) struct ClientCookiesTests {
    func cookieClient(_ baseURL: URL, _ cookies: CookieConfiguration = .init(), configure: (inout APIClient.Configuration) -> Void = { _ in }) -> APIClient {
        client(baseURL, retryPolicy: .never) {
            $0.cookies = cookies
            configure(&$0)
        }
    }

    /// The `Cookie` field the scripted server received with the last request to `path`.
    func cookieReceived(_ server: ScriptedServer, path: String) async throws -> String? {
        try await server.requests(path: path).last?.header("Cookie")
    }

    @Test("a login's Set-Cookie: sid=abc123 is sent back with the next request")
    func loginCookieSentBack() async throws {
        try await withScriptedServer { server in
            try await server.script("/login", [ScriptedResponse(status: 200, headerList: [["Set-Cookie", "sid=abc123; Path=/; HttpOnly"]])])
            try await server.script("/me", [.json(200, #"{"id":1,"name":"Ada"}"#)])
            let api = cookieClient(server.baseURL)
            _ = try await api.send(Endpoint<EmptyResponse>(path: "login", method: .post))
            #expect(try await api.send(Endpoint<User>(path: "me")).value.name == "Ada")
            #expect(try await cookieReceived(server, path: "/me") == "sid=abc123")
            let kept = try #require(try await api.cookies.all().first)
            #expect(kept.name == "sid" && kept.domain == "127.0.0.1" && kept.isHostOnly && kept.isHTTPOnly)
            await api.shutdown()
        }
    }

    @Test("a Secure cookie is never sent over plain HTTP, loopback included; nor set by a plain-HTTP response")
    func secureNotOverHTTP() async throws {
        try await withScriptedServer { server in
            try await server.script("/login", [ScriptedResponse(status: 200, headerList: [
                ["Set-Cookie", "secret=s1; Secure"], ["Set-Cookie", "plain=p1"],
            ])])
            try await server.script("/me", [.status(204)])
            let api = cookieClient(server.baseURL)
            try await api.cookies.set(Cookie(name: "byHand", value: "h1", domain: "127.0.0.1", isSecure: true))
            _ = try await api.data(for: Endpoint<EmptyResponse>(path: "login"))
            _ = try await api.data(for: Endpoint<EmptyResponse>(path: "me"))
            #expect(try await cookieReceived(server, path: "/me") == "plain=p1")
            #expect(try await api.cookies.all().map(\.name).sorted() == ["byHand", "plain"])
            await api.shutdown()
        }
    }

    @Test("a cookie never goes to a host it does not match: 127.0.0.1's cookie is not sent to localhost")
    func hostMismatch() async throws {
        try await withScriptedServer { server in
            try await server.script("/login", [ScriptedResponse(status: 200, headerList: [["Set-Cookie", "sid=abc123"]])])
            try await server.script("/me", [.status(204)])
            let api = cookieClient(server.baseURL)
            _ = try await api.data(for: Endpoint<EmptyResponse>(path: "login"))
            let port = try #require(server.baseURL.port)
            _ = try await api.data(for: HTTPRequest(method: .get, url: URL(string: "http://localhost:\(port)/me")!))
            #expect(try await cookieReceived(server, path: "/me") == nil)
            _ = try await api.data(for: Endpoint<EmptyResponse>(path: "me"))
            #expect(try await cookieReceived(server, path: "/me") == "sid=abc123")
            await api.shutdown()
        }
    }

    @Test("a persisted store survives a new client on the same file: cookies with an expiry, not session ones")
    func persistedStoreSurvives() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cookies.sqlite")
        try await withScriptedServer { server in
            try await server.script("/login", [ScriptedResponse(status: 200, headerList: [
                ["Set-Cookie", "sid=abc123; Max-Age=3600; Path=/"], ["Set-Cookie", "visit=v1"],
                ["Set-Cookie", "gone=g1; Max-Age=3600"],
            ])])
            try await server.script("/logout-one", [ScriptedResponse(status: 200, headerList: [["Set-Cookie", "gone=; Max-Age=0"]])])
            try await server.script("/me", [.status(204)])
            let first = cookieClient(server.baseURL, .init(storageFile: file))
            _ = try await first.data(for: Endpoint<EmptyResponse>(path: "login"))
            _ = try await first.data(for: Endpoint<EmptyResponse>(path: "logout-one"))
            await first.shutdown()

            // A new client on the same file: a new process, as far as the store knows.
            let second = cookieClient(server.baseURL, .init(storageFile: file))
            _ = try await second.data(for: Endpoint<EmptyResponse>(path: "me"))
            #expect(try await cookieReceived(server, path: "/me") == "sid=abc123")
            try await second.cookies.set("theme=dark; Max-Age=60", from: server.baseURL)
            await second.shutdown()

            // Session cookies too, when asked.
            let third = cookieClient(server.baseURL, .init(storageFile: file, keepsSessionCookies: true))
            _ = try await third.data(for: Endpoint<EmptyResponse>(path: "login"))
            #expect(try await third.cookies.all().map(\.name).sorted() == ["gone", "sid", "theme", "visit"])
            await third.shutdown()
            let fourth = cookieClient(server.baseURL, .init(storageFile: file, keepsSessionCookies: true))
            #expect(try await fourth.cookies.all().map(\.name).sorted() == ["gone", "sid", "theme", "visit"])
            try await fourth.cookies.clear()
            await fourth.shutdown()
            let fifth = cookieClient(server.baseURL, .init(storageFile: file))
            #expect(try await fifth.cookies.all().isEmpty)
            await fifth.shutdown()
        }
    }

    @Test("a storage file that cannot be opened leaves the store in memory; writes by hand say storageFailed")
    func unusableFile() async throws {
        try await withScriptedServer { server in
            try await server.script("/login", [ScriptedResponse(status: 200, headerList: [["Set-Cookie", "sid=abc123; Max-Age=60"]])])
            try await server.script("/me", [.status(204)])
            let api = cookieClient(server.baseURL, .init(storageFile: URL(fileURLWithPath: "/nonexistent-directory/cookies.sqlite")))
            _ = try await api.data(for: Endpoint<EmptyResponse>(path: "login"))
            _ = try await api.data(for: Endpoint<EmptyResponse>(path: "me"))
            #expect(try await cookieReceived(server, path: "/me") == "sid=abc123")
            await #expect {
                try await api.cookies.set(Cookie(name: "a", value: "1", domain: "127.0.0.1"))
            } throws: { error in
                guard case NetworkError.storageFailed(let reason) = error else { return false }
                return reason.contains("/nonexistent-directory/cookies.sqlite")
            }
            #expect(try await api.cookies.all().count == 2)
            await api.shutdown()
        }
    }

    @Test("a cookie file that cannot be written: a response's new persistent cookie logs a warning; a session cookie writes nothing")
    func failedWriteIsLogged() async throws {
        let logger = CapturingLogger(minimumLevel: .warning)
        let api = client(URL(string: "https://api.example.com")!, transport: InMemoryTransport { request in
            switch request.url.path {
            case "/session": HTTPResponse(status: 200, headers: ["Set-Cookie": "sid=s1"])
            case "/session-again": HTTPResponse(status: 200, headers: ["Set-Cookie": "sid=s2"])
            default: HTTPResponse(status: 200, headers: ["Set-Cookie": "keep=k1; Max-Age=60"])
            }
        }, retryPolicy: .never) {
            $0.cookies = .init(storageFile: URL(fileURLWithPath: "/nonexistent-directory/cookies.sqlite"))
            $0.logging = .init(logger: logger, detail: .standard)
        }
        _ = try await api.data(for: Endpoint<EmptyResponse>(path: "session"))
        _ = try await api.data(for: Endpoint<EmptyResponse>(path: "session-again"))
        // Session cookies are never in the file: no write, so nothing failed.
        #expect(logger.lines.filter { $0.message == "could not write the cookie file" }.isEmpty)
        _ = try await api.data(for: Endpoint<EmptyResponse>(path: "login"))
        let warnings = logger.lines.filter { $0.message == "could not write the cookie file" }
        #expect(warnings.count == 1)
        #expect(warnings.first?.level == .warning)
        #expect(warnings.first?.metadata["host"] == "api.example.com")
        #expect(warnings.first?.metadata["error"]?.contains("/nonexistent-directory/cookies.sqlite") == true)
        #expect(try await api.cookies.all().map(\.name).sorted() == ["keep", "sid"])   // kept in memory all the same
        await api.shutdown()
    }

    @Test("all() leaves out cookies that expired since they were stored")
    func allLeavesOutExpired() async throws {
        let clock = ManualClock()
        let api = client(URL(string: "https://api.example.com")!, transport: InMemoryTransport { _ in HTTPResponse(status: 204) }, clock: clock) {
            $0.cookies = .init()
        }
        try await api.cookies.set("short=1; Max-Age=5", from: URL(string: "https://api.example.com/")!)
        try await api.cookies.set("long=1; Max-Age=600", from: URL(string: "https://api.example.com/")!)
        #expect(try await api.cookies.all().map(\.name).sorted() == ["long", "short"])
        clock.advance(by: .seconds(6))
        #expect(try await api.cookies.all().map(\.name) == ["long"])
        await api.shutdown()
    }

    @Test("set, read for a URL, remove and clear by hand; refused cookies throw invalidRequest")
    func byHand() async throws {
        let api = cookieClient(URL(string: "https://api.example.com")!)
        try await api.cookies.set(Cookie(name: "a", value: "1", domain: "example.com", isHostOnly: false))
        try await api.cookies.set("b=2; Path=/v1", from: URL(string: "https://api.example.com/v1/login")!)
        #expect(try await api.cookies.cookies(for: URL(string: "https://api.example.com/v1/users")!).map(\.name) == ["b", "a"])
        #expect(try await api.cookies.cookies(for: URL(string: "https://www.example.com/v1")!).map(\.name) == ["a"])
        do {
            try await api.cookies.set("c=3; Domain=com", from: URL(string: "https://api.example.com/")!)
            Issue.record("a public suffix was accepted")
        } catch {
            #expect("\(error)".contains("Domain=com is a public suffix"))
        }
        await #expect(throws: NetworkError.self) { try await api.cookies.cookies(for: URL(string: "ftp://example.com/")!) }
        let b = try #require(try await api.cookies.all().first { $0.name == "b" })
        #expect(try await api.cookies.remove(b))
        #expect(try await !api.cookies.remove(b))
        try await api.cookies.clear()
        #expect(try await api.cookies.all().isEmpty)
        await api.shutdown()
    }

    @Test("without Configuration.cookies every call throws componentUnavailable(\"cookies\"), naming the field")
    func unconfigured() async throws {
        let api = unconfiguredClient()
        let field = "APIClient.Configuration.cookies"
        let cookie = Cookie(name: "a", value: "1", domain: "api.test")
        await expectUnavailable("cookies", naming: field) { () async throws(NetworkError) in try await api.cookies.all() }
        await expectUnavailable("cookies", naming: field) { () async throws(NetworkError) in try await api.cookies.cookies(for: URL(string: "https://api.test")!) }
        await expectUnavailable("cookies", naming: field) { () async throws(NetworkError) in try await api.cookies.set(cookie) }
        await expectUnavailable("cookies", naming: field) { () async throws(NetworkError) in try await api.cookies.set("a=1", from: URL(string: "https://api.test")!) }
        await expectUnavailable("cookies", naming: field) { () async throws(NetworkError) in try await api.cookies.remove(cookie) }
        await expectUnavailable("cookies", naming: field) { () async throws(NetworkError) in try await api.cookies.clear() }
        await api.shutdown()
    }

    @Test("sign-out clears the cookies, unless the configuration says not to")
    func signOutClears() async throws {
        for clears in [true, false] {
            let api = cookieClient(URL(string: "https://api.example.com")!, .init(clearsOnSignOut: clears)) { $0.session = .init() }
            try await api.session.signIn(Tokens(accessToken: "t", refreshToken: "r", expiresIn: 3600, now: Date()))
            try await api.cookies.set(Cookie(name: "sid", value: "abc123", domain: "api.example.com"))
            try await api.session.signOut()
            #expect(try await api.cookies.all().isEmpty == clears)
            await api.shutdown()
        }
    }

    // MARK: httpbin

    /// httpbin's `/cookies` answer: the cookies it received.
    private func httpbinCookies(_ response: HTTPResponse) throws -> [String: String] {
        struct Answer: Decodable { let cookies: [String: String] }
        return try JSONDecoder().decode(Answer.self, from: response.body).cookies
    }

    @Test("httpbin: /cookies/set?session=s1 → 302 → /cookies shows it, within one redirect chain; /cookies/delete removes it")
    func httpbinSetAndDelete() async throws {
        try await withHTTPBin { httpbin in
            let api = cookieClient(httpbin.baseURL)
            let set = try await api.data(for: Endpoint<EmptyResponse>(path: "cookies/set", query: [URLQueryItem(name: "session", value: "s1")]))
            #expect(try httpbinCookies(set) == ["session": "s1"])
            let again = try await api.data(for: Endpoint<EmptyResponse>(path: "cookies"))
            #expect(try httpbinCookies(again) == ["session": "s1"])
            let deleted = try await api.data(for: Endpoint<EmptyResponse>(path: "cookies/delete", query: [URLQueryItem(name: "session", value: nil)]))
            #expect(try httpbinCookies(deleted) == [:])
            #expect(try await api.cookies.all().isEmpty)
            await api.shutdown()
        }
    }

    @Test("httpbin: a cookie set by hand reaches it; the caller's own Cookie header is kept beside it")
    func httpbinByHandAndOwn() async throws {
        try await withHTTPBin { httpbin in
            let api = cookieClient(httpbin.baseURL)
            try await api.cookies.set(Cookie(name: "theme", value: "dark", domain: "127.0.0.1"))
            let response = try await api.data(for: Endpoint<EmptyResponse>(path: "cookies", headers: ["Cookie": "mine=m1"]))
            #expect(try httpbinCookies(response) == ["theme": "dark", "mine": "m1"])
            await api.shutdown()
        }
    }
}
