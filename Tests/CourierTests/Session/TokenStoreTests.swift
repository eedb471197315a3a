import CourierTesting
import Foundation
import Testing

@testable import Courier

/// The refresh endpoint's JSON answer.
func refreshAnswer(access: String, refresh: String? = nil, expiresIn: Int = 3600) -> ScriptedResponse {
    let rotated = refresh.map { #","refreshToken":"\#($0)""# } ?? ""
    return .json(200, #"{"accessToken":"\#(access)"\#(rotated),"expiresIn":\#(expiresIn)}"#)
}

/// A client of `server` with a session kept in `persistence`.
func sessionClient(_ server: ScriptedServer, persistence: any TokenPersistence = InMemoryTokenPersistence()) -> APIClient {
    client(server.baseURL, retryPolicy: .never) {
        $0.session = .init(persistence: persistence)
        $0.limits = .init(maxConcurrentRequests: 64, maxQueuedRequests: 1024)
    }
}

/// Sends `count` GETs to `/v1/me` at once; returns how many succeeded and the errors of the rest.
func concurrentGets(_ api: APIClient, count: Int) async -> (successes: Int, errors: [NetworkError]) {
    await withTaskGroup(of: Result<Void, NetworkError>.self) { group in
        for _ in 0..<count {
            group.addTask {
                do throws(NetworkError) {
                    _ = try await api.send(Endpoint<User>(path: "me", version: .v1))
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
        }
        var successes = 0
        var errors: [NetworkError] = []
        for await result in group {
            switch result {
            case .success: successes += 1
            case .failure(let error): errors.append(error)
            }
        }
        return (successes, errors)
    }
}

/// In-memory persistence whose saves fail while `failing` is set (a full disk, say).
final class FailingSaves: TokenPersistence {
    private let saved = InMemoryTokenPersistence()
    private let failure = Locked(false)

    var failing: Bool {
        get { failure.withLock { $0 } }
        set { failure.withLock { $0 = newValue } }
    }

    func load() -> Tokens? { saved.load() }
    func save(_ tokens: Tokens) throws {
        if failing { throw CocoaError(.fileWriteOutOfSpace) }
        saved.save(tokens)
    }
    func remove() { saved.remove() }
}

/// Serialized: two of these send 500 requests each over loopback; run together (and under
/// ThreadSanitizer) they would starve the suite's timing-sensitive tests.
@Suite(.serialized, .timeLimit(.minutes(5))) struct TokenStoreTests {
    let me = #"{"id":1,"name":"Ann"}"#

    @Test("500 concurrent requests with an expired token: one refresh, then every request carries the new token")
    func expiredTokenOneRefresh() async throws {
        try await withScriptedServer { server in
            try await server.script("/auth/refresh", [refreshAnswer(access: "new")])
            try await server.script("/v1/me", [.json(200, me)])
            let api = sessionClient(server)
            let expired = try Tokens(jwt: makeJWT(#"{"exp":1000}"#), refreshToken: "r1")
            try await api.session.signIn(expired)
            let result = await concurrentGets(api, count: 500)
            #expect(result.successes == 500)
            #expect(result.errors.isEmpty)
            let refreshes = try await server.requests(path: "/auth/refresh")
            #expect(refreshes.count == 1)
            #expect(refreshes.first?.bodyText == #"{"refreshToken":"r1"}"#)
            #expect(refreshes.first?.header("Authorization") == nil)
            let sent = try await server.requests(path: "/v1/me")
            #expect(sent.count == 500)
            #expect(sent.allSatisfy { $0.header("Authorization") == "Bearer new" })
            await api.shutdown()
        }
    }

    @Test("a storm of 401s for the old token while the refresh is in flight: still one refresh, every request replayed once")
    func unauthorizedStormOneRefresh() async throws {
        try await withScriptedServer { server in
            try await server.script("/auth/refresh", [refreshAnswer(access: "new").with(delay: 0.2)])
            try await server.script("/v1/me", [.json(200, me).when(header: "Authorization", is: "Bearer new", otherwise: .status(401))])
            let api = sessionClient(server)
            try await api.session.signIn(Tokens(accessToken: "old", refreshToken: "r1", expiresAt: nil))
            let result = await concurrentGets(api, count: 500)
            #expect(result.successes == 500)
            #expect(try await server.requests(path: "/auth/refresh").count == 1)
            let sent = try await server.requests(path: "/v1/me")
            let withNew = sent.filter { $0.header("Authorization") == "Bearer new" }.count
            #expect(withNew == 500)
            #expect(sent.count - withNew <= 500)   // each request went at most once with the old token
            await api.shutdown()
        }
    }

    @Test("a rejected refresh token: waiters unauthorized, tokens and file cleared, event, later requests never reach the server")
    func rejectedRefreshLatches() async throws {
        try await withScriptedServer { server in
            try await server.script("/auth/refresh", [.json(400, #"{"error":"invalid_grant"}"#)])
            try await server.script("/v1/me", [.status(401)])
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = FileTokenPersistence(url: directory.appendingPathComponent("tokens.json"))
            let api = sessionClient(server, persistence: file)
            let events = api.session.events()
            try await api.session.signIn(Tokens(accessToken: "old", refreshToken: "r1", expiresAt: nil))
            #expect(try file.load() != nil)
            let result = await concurrentGets(api, count: 50)
            #expect(result.successes == 0)
            #expect(result.errors.allSatisfy { if case .unauthorized = $0 { true } else { false } })
            #expect(try await server.requests(path: "/auth/refresh").count == 1)
            #expect(try file.load() == nil)
            #expect(try await api.session.state() == .expired)
            var sawExpiry = false
            for await event in events {
                if case .sessionExpired = event { sawExpiry = true; break }
            }
            #expect(sawExpiry)
            let before = try await server.requests(path: "/v1/me").count
            await #expect(throws: NetworkError.self) { _ = try await api.send(Endpoint<User>(path: "me", version: .v1)) }
            #expect(try await server.requests(path: "/v1/me").count == before)
            // Signing in again lifts the latch.
            try await server.script("/v1/me", [.json(200, me)])
            try await api.session.signIn(Tokens(accessToken: "fresh", refreshToken: "r2", expiresAt: nil))
            #expect(try await api.send(Endpoint<User>(path: "me", version: .v1)).value.id == 1)
            await api.shutdown()
        }
    }

    @Test("a transient refresh failure fails the waiters with it and keeps the tokens")
    func transientFailureKeepsTokens() async throws {
        try await withScriptedServer { server in
            try await server.script("/auth/refresh", [.status(503), refreshAnswer(access: "new")])
            try await server.script("/v1/me", [.json(200, me).when(header: "Authorization", is: "Bearer new", otherwise: .status(401))])
            let api = sessionClient(server)
            try await api.session.signIn(Tokens(accessToken: "old", refreshToken: "r1", expiresAt: nil))
            await #expect {
                _ = try await api.send(Endpoint<User>(path: "me", version: .v1))
            } throws: { error in
                if case NetworkError.serverError(let response) = error { response.status == 503 } else { false }
            }
            #expect(try await api.session.state() == .signedIn(expiresAt: nil))
            #expect(try await api.send(Endpoint<User>(path: "me", version: .v1)).value.id == 1)
            await api.shutdown()
        }
    }

    @Test("a server that answers 401 to every token: each request replays once, and the refresh window stops the loop")
    func refreshWindowStopsA401Loop() async throws {
        try await withScriptedServer { server in
            try await server.script("/auth/refresh", [refreshAnswer(access: "next")])
            try await server.script("/v1/me", [.status(401)])
            let api = sessionClient(server)
            try await api.session.signIn(Tokens(accessToken: "old", refreshToken: "r1", expiresAt: nil))
            for _ in 0..<8 {
                await #expect(throws: NetworkError.self) { _ = try await api.send(Endpoint<User>(path: "me", version: .v1)) }
            }
            #expect(try await server.requests(path: "/auth/refresh").count == 5)
            // 5 requests sent twice (refresh, replay), the 3 after the window's end once.
            #expect(try await server.requests(path: "/v1/me").count == 13)
            await api.shutdown()
        }
    }

    @Test("a rotated refresh token is persisted and used for the next refresh")
    func rotation() async throws {
        try await withScriptedServer { server in
            try await server.script("/auth/refresh", [refreshAnswer(access: "a2", refresh: "r2"), refreshAnswer(access: "a3")])
            try await server.script("/v1/me", [.json(200, me)])
            let persistence = InMemoryTokenPersistence()
            let api = sessionClient(server, persistence: persistence)
            try await api.session.signIn(Tokens(accessToken: "a1", refreshToken: "r1", expiresAt: nil))
            try await api.session.refresh()
            #expect(persistence.load()?.refreshToken == "r2")
            #expect(persistence.load()?.accessToken == "a2")
            try await api.session.refresh()
            let bodies = try await server.requests(path: "/auth/refresh").map(\.bodyText)
            #expect(bodies == [#"{"refreshToken":"r1"}"#, #"{"refreshToken":"r2"}"#])
            // An answer without a refresh token keeps the last one.
            #expect(persistence.load()?.refreshToken == "r2")
            #expect(persistence.load()?.accessToken == "a3")
            await api.shutdown()
        }
    }

    @Test("signed out: requests needing auth fail unauthorized without being sent; public paths still go")
    func signedOutFailsFast() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/me", [.json(200, me)])
            try await server.script("/v1/auth/login", [.json(200, me)])
            let api = sessionClient(server)
            await #expect(throws: NetworkError.self) { _ = try await api.send(Endpoint<User>(path: "me", version: .v1)) }
            #expect(try await server.requests(path: "/v1/me").isEmpty)
            #expect(try await api.send(Endpoint<User>(path: "auth/login", method: .post, version: .v1)).value.id == 1)
            try await api.session.signIn(Tokens(accessToken: "t", refreshToken: nil, expiresAt: nil))
            _ = try await api.send(Endpoint<User>(path: "me", version: .v1))
            try await api.session.signOut()
            await #expect(throws: NetworkError.self) { _ = try await api.send(Endpoint<User>(path: "me", version: .v1)) }
            #expect(try await server.requests(path: "/v1/me").count == 1)
            #expect(try await api.session.state() == .signedOut)
            await api.shutdown()
        }
    }

    @Test("a corrupt token file starts the session signed out with a storage event, never a crash")
    func corruptFileSignsOut() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("tokens.json")
        try Data("{ not json".utf8).write(to: url)
        let api = client(URL(string: "https://api.example.com")!, transport: ScriptedTransport()) {
            $0.session = .init(persistence: FileTokenPersistence(url: url))
        }
        // Subscribed before the first message, which is when the store reads the file.
        let events = api.session.events()
        #expect(try await api.session.state() == .signedOut)
        var failure: String?
        for await event in events {
            if case .storageFailed(let description) = event { failure = description; break }
        }
        #expect(failure?.contains("corrupt") == true)
        await api.shutdown()
    }

    @Test("the tokens survive the client: a new client reads them from the file")
    func tokensPersistAcrossClients() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/me", [.json(200, me)])
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = FileTokenPersistence(url: directory.appendingPathComponent("tokens.json"))
            let first = sessionClient(server, persistence: file)
            try await first.session.signIn(Tokens(accessToken: "kept", refreshToken: "r", expiresAt: nil))
            await first.shutdown()
            let second = sessionClient(server, persistence: file)
            _ = try await second.send(Endpoint<User>(path: "me", version: .v1))
            #expect(try await server.requests(path: "/v1/me").last?.header("Authorization") == "Bearer kept")
            await second.shutdown()
        }
    }

    @Test("the token store restarted by its supervisor mid-storm: no request hangs, none goes out with a token that was never kept")
    func restartMidStorm() async throws {
        try await withScriptedServer { server in
            try await server.script("/auth/refresh", [refreshAnswer(access: "new").with(delay: 0.3)])
            try await server.script("/v1/me", [.json(200, me).when(header: "Authorization", is: "Bearer new", otherwise: .status(401))])
            let persistence = FailingSaves()
            let api = sessionClient(server, persistence: persistence)
            let supervision = api.supervisionEvents()
            try await api.session.signIn(Tokens(accessToken: "old", refreshToken: "r1", expiresAt: nil))
            async let storm = concurrentGets(api, count: 200)
            _ = try await server.waitForRequests(path: "/auth/refresh", count: 1)
            // A sign-in that cannot be persisted fails the store while requests wait for its refresh.
            persistence.failing = true
            await #expect {
                try await api.session.signIn(Tokens(accessToken: "never-kept", refreshToken: "r9", expiresAt: nil))
            } throws: { error in
                if case NetworkError.componentRestarted("TokenStore") = error { true } else { false }
            }
            persistence.failing = false
            let result = await storm
            #expect(result.successes == 200)
            #expect(result.errors.isEmpty)
            let tokensSent = Set(try await server.requests(path: "/v1/me").map { $0.header("Authorization") ?? "none" })
            #expect(tokensSent.isSubset(of: ["Bearer old", "Bearer new"]))
            var restarted = false
            for await event in supervision {
                if case .restarted(child: "TokenStore", _) = event { restarted = true; break }
            }
            #expect(restarted)
            await api.shutdown()
        }
    }

    @Test("a verbose log of a refresh and of the requests around it shows no token")
    func tokensNeverReachTheLog() async throws {
        try await withScriptedServer { server in
            try await server.script("/auth/refresh", [refreshAnswer(access: "access-NEW-secret", refresh: "refresh-NEW-secret")])
            try await server.script("/v1/me", [.json(200, me)])
            let logger = CapturingLogger(minimumLevel: .trace)
            let api = client(server.baseURL, retryPolicy: .never) {
                $0.session = .init()
                $0.logging = .init(logger: logger, detail: .verbose)
            }
            let events = api.session.events()
            try await api.session.signIn(Tokens(accessToken: "access-OLD-secret", refreshToken: "refresh-OLD-secret", expiresAt: nil))
            _ = try await api.send(Endpoint<User>(path: "me", version: .v1))
            try await api.session.refresh()
            _ = try await api.send(Endpoint<User>(path: "me", version: .v1))
            await api.shutdown()
            #expect(try await server.requests(path: "/auth/refresh").count == 1)
            #expect(!logger.allText.isEmpty)
            #expect(!logger.allText.contains("secret"))
            var described: [String] = []
            for await event in events { described.append("\(event)") }
            #expect(described.count >= 2)
            #expect(!described.joined().contains("secret"))
        }
    }

    @Test("a token shorter-lived than twice the threshold is refreshed at half its life, not on every request")
    func shortLivedToken() async throws {
        try await withScriptedServer { server in
            try await server.script("/auth/refresh", [refreshAnswer(access: "new", expiresIn: 30)])
            try await server.script("/v1/me", [.json(200, me)])
            let clock = ManualClock()
            let api = client(server.baseURL, retryPolicy: .never, clock: clock) { $0.session = .init() }
            try await api.session.signIn(Tokens(accessToken: "old", refreshToken: "r1", expiresIn: 30, now: clock.currentDate))
            for _ in 0..<5 { _ = try await api.send(Endpoint<User>(path: "me", version: .v1)) }
            #expect(try await server.requests(path: "/auth/refresh").isEmpty)
            clock.advance(by: .seconds(16))
            _ = try await api.send(Endpoint<User>(path: "me", version: .v1))
            #expect(try await server.requests(path: "/auth/refresh").count == 1)
            #expect(try await server.requests(path: "/v1/me").last?.header("Authorization") == "Bearer new")
            await api.shutdown()
        }
    }
}
