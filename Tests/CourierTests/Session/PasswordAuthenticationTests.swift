import CourierTesting
import Foundation
import Testing

@testable import Courier

/// Basic and Digest through the whole chain: against httpbin (a real server checking the
/// answers) and the scripted server (what was sent, and how often).
@Suite(.timeLimit(.minutes(2))) struct PasswordAuthenticationTests {
    /// The parameters of a `Digest …` Authorization value (it has a challenge's syntax).
    private func digestParameters(_ authorization: String?, sourceLocation: SourceLocation = #_sourceLocation) -> AuthenticationChallenge? {
        guard let authorization else {
            Issue.record("no Authorization", sourceLocation: sourceLocation)
            return nil
        }
        let parsed = try? AuthenticationChallenge.parse(authorization).first
        #expect(parsed?.scheme == "Digest", sourceLocation: sourceLocation)
        return parsed
    }

    private func json(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The error of `body`, expected to be `unauthorized` with the server's 401.
    private func unauthorized(_ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async {
        do {
            try await body()
            Issue.record("no error", sourceLocation: sourceLocation)
        } catch {
            guard case NetworkError.unauthorized(let response) = error else {
                Issue.record("expected unauthorized, got \(error)", sourceLocation: sourceLocation)
                return
            }
            #expect(response?.status == 401, sourceLocation: sourceLocation)
        }
    }

    private static let challenge = ScriptedResponse.status(401, headers: [
        "WWW-Authenticate": #"Digest realm="api", nonce="nonce-1", opaque="op", qop="auth", algorithm=SHA-256"#,
    ])

    // MARK: - httpbin

    @Test("Basic against httpbin: /basic-auth and /hidden-basic-auth accept it at once; a wrong password is unauthorized")
    func basicAgainstHTTPBin() async throws {
        try await withHTTPBin { httpbin in
            let transport = RecordingTransport()
            let api = client(httpbin.baseURL, transport: transport, retryPolicy: .never) { $0.auth = .basic(user: "user", password: "passwd") }
            let answer = try json(try await api.send(Endpoint<Data>(path: "basic-auth/user/passwd")).value)
            #expect(answer["authenticated"] as? Bool == true)
            #expect(answer["user"] as? String == "user")
            // httpbin answers 404, not 401, without credentials: only credentials sent up front pass.
            let hidden = try json(try await api.send(Endpoint<Data>(path: "hidden-basic-auth/user/passwd")).value)
            #expect(hidden["authenticated"] as? Bool == true)
            await unauthorized { _ = try await api.send(Endpoint<Data>(path: "basic-auth/user/other")) }
            #expect(transport.exchanges.map(\.status) == [200, 200, 401])
            #expect(transport.exchanges.allSatisfy { $0.authorization == "Basic dXNlcjpwYXNzd2Q=" })
            await api.shutdown()
        }
    }

    @Test("Digest against httpbin: auth × MD5 and SHA-256 (and the /never stale route); the next request answers at once with nc 2")
    func digestAgainstHTTPBin() async throws {
        try await withHTTPBin { httpbin in
            for path in ["digest-auth/auth/user/passwd/MD5", "digest-auth/auth/user/passwd/SHA-256", "digest-auth/auth/user/passwd/MD5/never"] {
                let transport = RecordingTransport()
                let api = client(httpbin.baseURL, transport: transport, retryPolicy: .never) { $0.auth = .digest(user: "user", password: "passwd") }
                let first = try json(try await api.send(Endpoint<Data>(path: path)).value)
                #expect(first["authenticated"] as? Bool == true, "\(path)")
                let second = try json(try await api.send(Endpoint<Data>(path: path)).value)
                #expect(second["authenticated"] as? Bool == true, "\(path)")

                let exchanges = transport.exchanges
                #expect(exchanges.map(\.status) == [401, 200, 200], "\(path)")
                #expect(exchanges.first?.authorization == nil)
                let answer = digestParameters(exchanges[1].authorization)
                let again = digestParameters(exchanges[2].authorization)
                #expect(answer?["algorithm"] == (path.contains("SHA-256") ? "SHA-256" : "MD5"))
                #expect(answer?["uri"] == "/" + path)
                #expect(answer?["nc"] == "00000001")
                #expect(again?["nc"] == "00000002")
                #expect(again?["nonce"] == answer?["nonce"])
                #expect(again?["cnonce"] == answer?["cnonce"])
                #expect(again?["response"] != answer?["response"])
                await api.shutdown()
            }
        }
    }

    @Test("Digest with a wrong password against httpbin: unauthorized after exactly one answer")
    func digestWrongPasswordAgainstHTTPBin() async throws {
        try await withHTTPBin { httpbin in
            let transport = RecordingTransport()
            let api = client(httpbin.baseURL, transport: transport) { $0.auth = .digest(user: "user", password: "wrong") }
            await unauthorized { _ = try await api.send(Endpoint<Data>(path: "digest-auth/auth/user/passwd/SHA-256")) }
            #expect(transport.exchanges.map(\.status) == [401, 401])
            #expect(transport.exchanges.map { $0.authorization == nil } == [true, false])
            await api.shutdown()
        }
    }

    @Test("a server that keeps saying stale=true (httpbin with stale_after=0): one answer, one re-answer with the new nonce, then its 401")
    func alwaysStaleAgainstHTTPBin() async throws {
        try await withHTTPBin { httpbin in
            let transport = RecordingTransport()
            let api = client(httpbin.baseURL, transport: transport) { $0.auth = .digest(user: "user", password: "passwd") }
            // httpbin keeps its stale countdown in a cookie; this client sends it by hand.
            let endpoint = Endpoint<Data>(path: "digest-auth/auth/user/passwd/MD5/0", headers: ["Cookie": "stale_after=0"])
            await unauthorized { _ = try await api.send(endpoint) }
            let exchanges = transport.exchanges
            #expect(exchanges.map(\.status) == [401, 401, 401])
            #expect(exchanges.map { $0.challenge?.lowercased().contains("stale=true") == true } == [false, true, true])
            let (answer, reanswer) = (digestParameters(exchanges[1].authorization), digestParameters(exchanges[2].authorization))
            #expect(answer?["nonce"] != reanswer?["nonce"])
            #expect(reanswer?["nonce"].map { exchanges[1].challenge?.contains($0) == true } == true)
            #expect(reanswer?["nc"] == "00000001")
            await api.shutdown()
        }
    }

    // MARK: - The scripted server

    @Test("stale=true is answered again with the new nonce (nc 1 again, a new client nonce) and is no failure")
    func staleIsAnsweredAgain() async throws {
        try await withScriptedServer { server in
            let stale = ScriptedResponse.status(401, headers: [
                "WWW-Authenticate": #"Digest realm="api", nonce="nonce-2", opaque="op", qop="auth", algorithm=SHA-256, stale=true"#,
            ])
            try await server.script("/v1/report", [Self.challenge, stale, .json(200, #"{"ok":true}"#)])
            let api = client(server.baseURL, retryPolicy: .never) { $0.auth = .digest(user: "ann", password: "pw") }
            _ = try await api.send(Endpoint<Data>(path: "v1/report"))
            _ = try await api.send(Endpoint<Data>(path: "v1/report"))
            let sent = try await server.requests(path: "/v1/report")
            #expect(sent.count == 4)
            #expect(sent.first?.header("Authorization") == nil)
            let answers = sent.dropFirst().map { digestParameters($0.header("Authorization")) }
            #expect(answers.map { $0?["nonce"] } == ["nonce-1", "nonce-2", "nonce-2"])
            #expect(answers.map { $0?["nc"] } == ["00000001", "00000001", "00000002"])
            #expect(answers[0]?["cnonce"] != answers[1]?["cnonce"])
            #expect(answers[1]?["cnonce"] == answers[2]?["cnonce"])
            #expect(answers.allSatisfy { $0?["opaque"] == "op" && $0?["username"] == "ann" && $0?["uri"] == "/v1/report" })
            await api.shutdown()
        }
    }

    @Test("a cookie set by the 401 challenge goes with the Digest answer (the cookie step is below the auth step)")
    func challengeCookieReachesTheAnswer() async throws {
        try await withScriptedServer { server in
            let challenge = ScriptedResponse.status(401, headers: [
                "WWW-Authenticate": #"Digest realm="api", nonce="nonce-1", qop="auth""#, "Set-Cookie": "lb=node-7; Path=/",
            ])
            try await server.script("/v1/report", [challenge, .status(200)])
            let api = client(server.baseURL, retryPolicy: .never) {
                $0.auth = .digest(user: "ann", password: "pw")
                $0.cookies = .init()
            }
            _ = try await api.send(Endpoint<Data>(path: "v1/report"))
            let sent = try await server.requests(path: "/v1/report")
            #expect(sent.map { $0.header("Cookie") } == [nil, "lb=node-7"])
            #expect(sent.last?.header("Authorization")?.hasPrefix("Digest ") == true)
            #expect(try await api.cookies.all().map(\.name) == ["lb"])
            await api.shutdown()
        }
    }

    @Test("a malformed challenge of another scheme does not hide the Digest one, nor the 401 when nothing else is usable")
    func malformedChallengeIsSkipped() async throws {
        let transport = ScriptedTransport()
        let broken = ("WWW-Authenticate", #"Newauth realm="unterminated"#)
        transport.script("/v1/report", [
            .status(401, headers: HTTPHeaders([broken, ("WWW-Authenticate", #"Digest realm="api", nonce="nonce-1", qop="auth""#)])),
            .status(200),
        ])
        transport.script("/v1/other", [.status(401, headers: HTTPHeaders([broken]))])
        let api = client(URL(string: "https://api.test")!, transport: transport, retryPolicy: .never) {
            $0.auth = .digest(user: "ann", password: "pw")
        }
        #expect(try await api.send(Endpoint<Data>(path: "v1/report")).status == 200)
        let sent = transport.requests(to: "/v1/report")
        #expect(sent.map { $0.headers["Authorization"]?.hasPrefix("Digest ") ?? false } == [false, true])
        await unauthorized { _ = try await api.send(Endpoint<Data>(path: "v1/other")) }
        #expect(transport.requests(to: "/v1/other").count == 1)
        await api.shutdown()
    }

    @Test("a dropped 401's body counts against the response size limit of the answer")
    func challengeBodyCountsAgainstTheLimit() async throws {
        try await withScriptedServer { server in
            let challenge = ScriptedResponse.sized(600, status: 401, headers: [
                "WWW-Authenticate": #"Digest realm="api", nonce="nonce-1", qop="auth""#,
            ])
            try await server.script("/v1/report", [challenge, .sized(600)])
            let api = client(server.baseURL, retryPolicy: .never) {
                $0.auth = .digest(user: "ann", password: "pw")
                $0.limits.maxResponseBytes = 1000
            }
            let error = await #expect(throws: NetworkError.self) { _ = try await api.send(Endpoint<Data>(path: "v1/report")) }
            guard case .responseTooLarge(1000)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(try await server.requests(path: "/v1/report").count == 2)
            await api.shutdown()
        }
    }

    @Test("a wrong password: unauthorized after exactly one answer; the next request waits for a challenge again")
    func wrongPasswordAnswersOnce() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/report", [Self.challenge])
            let api = client(server.baseURL) { $0.auth = .digest(user: "ann", password: "wrong") }
            await unauthorized { _ = try await api.send(Endpoint<Data>(path: "v1/report")) }
            #expect(try await server.requests(path: "/v1/report").count == 2)
            await unauthorized { _ = try await api.send(Endpoint<Data>(path: "v1/report")) }
            let sent = try await server.requests(path: "/v1/report")
            #expect(sent.map { $0.header("Authorization") == nil } == [true, false, true, false])
            await api.shutdown()
        }
    }

    @Test("a refused up-front answer is followed by one answer to the fresh challenge")
    func refusedUpFrontAnswer() async throws {
        try await withScriptedServer { server in
            let renewed = ScriptedResponse.status(401, headers: ["WWW-Authenticate": #"Digest realm="api", nonce="nonce-9", qop="auth""#])
            try await server.script("/v1/report", [Self.challenge, .status(200), renewed, .status(200)])
            let api = client(server.baseURL, retryPolicy: .never) { $0.auth = .digest(user: "ann", password: "pw") }
            _ = try await api.send(Endpoint<Data>(path: "v1/report"))
            _ = try await api.send(Endpoint<Data>(path: "v1/report"))
            let answers = try await server.requests(path: "/v1/report").map { $0.header("Authorization").flatMap { try? AuthenticationChallenge.parse($0).first } }
            #expect(answers.count == 4)
            #expect(answers.map { $0?["nonce"] } == [nil, "nonce-1", "nonce-1", "nonce-9"])
            #expect(answers.map { $0?["nc"] } == [nil, "00000001", "00000002", "00000001"])
            #expect(answers.last??["algorithm"] == "MD5")
            await api.shutdown()
        }
    }

    @Test("concurrent requests answering one challenge each get their own nonce count")
    func concurrentNonceCounts() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/report", [Self.challenge, .status(200)])
            let api = client(server.baseURL, retryPolicy: .never) { $0.auth = .digest(user: "ann", password: "pw") }
            _ = try await api.send(Endpoint<Data>(path: "v1/report"))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<40 { group.addTask { _ = try await api.send(Endpoint<Data>(path: "v1/report")) } }
                try await group.waitForAll()
            }
            let counts = try await server.requests(path: "/v1/report").dropFirst().compactMap { request in
                request.header("Authorization").flatMap { try? AuthenticationChallenge.parse($0).first?["nc"] }.flatMap { Int($0, radix: 16) }
            }
            #expect(counts.sorted() == Array(1...41))
            await api.shutdown()
        }
    }

    @Test("the body goes again with the answer; a body stream read once cannot, so its 401 is the answer")
    func bodies() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/upload", [Self.challenge, .status(201)])
            try await server.script("/v1/once", [Self.challenge])
            let api = client(server.baseURL, retryPolicy: .never) { $0.auth = .digest(user: "ann", password: "pw") }
            let response = try await api.data(for: Endpoint<Data>(path: "v1/upload", method: .post, body: .data(Data("payload".utf8), contentType: "text/plain")))
            #expect(response.status == 201)
            let uploads = try await server.requests(path: "/v1/upload")
            #expect(uploads.map(\.bodyText) == ["payload", "payload"])
            #expect(uploads.last?.header("Authorization")?.hasPrefix("Digest ") == true)

            var request = try api.makeRequest(Endpoint<Data>(path: "v1/once", method: .post).untyped)
            var given = false
            request.bodyStream = HTTPBodyStream(length: 4, readingOnce: { _ in
                defer { given = true }
                return given ? Data() : Data("once".utf8)
            })
            await unauthorized { _ = try await api.data(for: request) }
            #expect(try await server.requests(path: "/v1/once").count == 1)
            await api.shutdown()
        }
    }

    @Test("credentials stay with the client's origin: a redirect to another origin is neither given a password nor answered")
    func otherOriginsGetNothing() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/away", [.redirect(302, to: "http://localhost:\(server.port)/v1/there")])
            try await server.script("/v1/there", [Self.challenge])
            for auth in [AuthInterceptor.basic(user: "ann", password: "pw"), .digest(user: "ann", password: "pw")] {
                let api = client(server.baseURL, retryPolicy: .never) { $0.auth = auth }
                await unauthorized { _ = try await api.send(Endpoint<Data>(path: "v1/away")) }
                await api.shutdown()
            }
            let away = try await server.requests(path: "/v1/away")
            #expect(away.map { $0.header("Authorization")?.hasPrefix("Basic ") == true } == [true, false])
            let there = try await server.requests(path: "/v1/there")
            #expect(there.count == 2)
            #expect(there.allSatisfy { $0.header("Authorization") == nil })
        }
    }

    @Test("no password over plain HTTP to a host that is not loopback, even one the guard allows, unless allowsInsecureHTTP")
    func plainHTTPIsRefused() async throws {
        let transport = ScriptedTransport()
        transport.script("/v1/report", [.status(200)])
        for auth in [AuthInterceptor.basic(user: "ann", password: "pw"), .digest(user: "ann", password: "pw")] {
            let api = client(URL(string: "http://sidecar.internal")!, transport: transport) {
                $0.security = SecurityGuard(insecureHostsAllowed: ["sidecar.internal"])
                $0.auth = auth
            }
            do {
                _ = try await api.send(Endpoint<Data>(path: "v1/report"))
                Issue.record("no error")
            } catch {
                guard case NetworkError.securityError(let message) = error else { Issue.record("got \(error)"); return }
                #expect(message == "refused to send a password over plain HTTP to sidecar.internal: use HTTPS, or allowsInsecureHTTP to accept the risk")
            }
            await api.shutdown()
        }
        #expect(transport.requests.isEmpty)
        let allowed = client(URL(string: "http://sidecar.internal")!, transport: transport) {
            $0.security = nil
            $0.auth = .basic(user: "ann", password: "pw", allowsInsecureHTTP: true)
        }
        _ = try await allowed.send(Endpoint<Data>(path: "v1/report"))
        #expect(transport.requests.map { $0.headers["Authorization"] } == ["Basic YW5uOnB3"])
        await allowed.shutdown()
    }

    @Test("logs show each exchange with Authorization redacted, Basic and Digest alike")
    func logsRedactTheAnswer() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/report", [Self.challenge, .status(200)])
            let logger = CapturingLogger()
            // Digest first: it takes the challenge, Basic the 200 after it.
            for auth in [AuthInterceptor.digest(user: "ann", password: "pw"), .basic(user: "ann", password: "pw")] {
                let api = client(server.baseURL, retryPolicy: .never) {
                    $0.auth = auth
                    $0.logging = .init(logger: logger, detail: .verbose)
                }
                _ = try await api.send(Endpoint<Data>(path: "v1/report"))
                await api.shutdown()
            }
            let sent = try await server.requests(path: "/v1/report")
            let secrets = sent.compactMap { $0.header("Authorization") }
            #expect(secrets.count == 2)
            let logged = logger.lines.map { "\($0.message) \($0.metadata)" }
            #expect(logged.contains { $0.contains("Authorization: <redacted>") })
            for secret in secrets {
                #expect(!logged.contains { $0.contains(secret) || $0.contains("YW5uOnB3") || $0.contains("username=") })
            }
        }
    }

    @Test("with a cache, a password's responses are cached for its user (a token closure's are not)")
    func cachedPerUser() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/report", [.json(200, "{}", headers: ["Cache-Control": "max-age=60"])])
            let api = client(server.baseURL, retryPolicy: .never) {
                $0.auth = .basic(user: "ann", password: "pw")
                $0.caching = .init()
            }
            _ = try await api.send(Endpoint<Data>(path: "v1/report"))
            _ = try await api.send(Endpoint<Data>(path: "v1/report"))
            #expect(try await server.requests(path: "/v1/report").count == 1)
            await api.shutdown()
        }
    }
}
