import CourierTesting
import Foundation
import Testing

@testable import Courier

/// A client of `baseURL` with a session (tokens in `persistence`) and an offline queue in
/// `directory`, connectivity from request outcomes and the app only.
private func sessionClient(
    _ baseURL: URL, directory: URL? = nil, persistence: any TokenPersistence = InMemoryTokenPersistence(),
    clock: any TimeSource = ManualClock(), interceptors: [any RequestInterceptor] = []
) -> APIClient {
    client(baseURL, retryPolicy: .never, clock: clock) {
        $0.connectivity = .init(debounce: .zero, watchesLink: false)
        $0.offline = APIClient.Configuration.Offline(
            storageFile: directory?.appendingPathComponent("offline.sqlite"), retryBackoff: .constant(.seconds(10)))
        $0.session = .init(persistence: persistence)
        $0.requestInterceptors = interceptors
    }
}

/// Reports the client offline and waits until the monitor says so: writes are then queued.
private func goOffline(_ api: APIClient) async throws {
    try api.connectivity.report(.offline)
    #expect(try await settledConnectivity(api) == .offline)
}

private func isWaitingForUser(_ event: OfflineEvent) -> Bool {
    if case .waitingForUser = event { true } else { false }
}

/// Signs `identity` in (with `token`) the first time a request to `/notes` passes it, before
/// the auth step: the session changes between a replay's claim and its send.
private struct SignsInOnFirstNote: RequestInterceptor {
    let client: Locked<APIClient?>
    let token: String
    let identity: String
    let done = Locked(false)

    func intercept(_ request: HTTPRequest, context: RequestContext) async throws -> RequestInterception {
        let first = request.url.path == "/notes" && done.withLock { done in
            defer { done = true }
            return !done
        }
        if first, let api = client.withLock({ $0 }) {
            try await api.session.signIn(Tokens(accessToken: token, identity: identity))
        }
        return .proceed(request)
    }
}

@Suite(.timeLimit(.minutes(5))) struct OfflineIdentityTests {
    @Test("writes queued by one user are never replayed with another's token: they wait for their user, and go out with that user's token when they sign in again")
    func waitsForItsUser() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        try await server.script("/notes", method: "POST", [.json(201, "{}")])
        let api = sessionClient(server.baseURL, directory: try temporaryDirectory())
        let events = api.offline.events()
        try await api.session.signIn(Tokens(accessToken: "token-a", identity: "alice"))
        try await goOffline(api)
        var alices: [Int64] = []
        for n in 0..<3 { alices.append(try #require(await queuedID { () throws(NetworkError) in try await api.offline.send(noteWrite(n)) })) }
        try await api.session.signOut()
        try await api.session.signIn(Tokens(accessToken: "token-b", identity: "bob"))
        let bobs = try #require(await queuedID { () throws(NetworkError) in try await api.offline.send(noteWrite(99)) })
        #expect(try await api.offline.items().map(\.sessionIdentity) == ["alice", "alice", "alice", "bob"])

        try api.connectivity.report(.online)
        let seen = await collect(events) { $0.contains(.delivered(itemID: bobs, status: 201)) }
        #expect(seen.filter(isWaitingForUser) == alices.map { .waitingForUser(itemID: $0) })
        var received = try await server.requests(path: "/notes")
        #expect(received.map(\.bodyText) == [#"{"n":99}"#])
        #expect(received.map { $0.header("Authorization") } == ["Bearer token-b"])
        let waiting = try await api.offline.items()
        #expect(waiting.map(\.id) == alices)
        #expect(waiting.allSatisfy { $0.state == .waitingForUser && $0.sessionIdentity == "alice" })
        #expect(try await api.offline.pendingCount == 0)   // they do not hold back bob's writes
        // Another drain under bob changes nothing.
        _ = try await api.offline.sync()
        #expect(try await server.requests(path: "/notes").count == 1)

        try await api.session.signOut()
        try await api.session.signIn(Tokens(accessToken: "token-a2", identity: "alice"))
        let after = await collect(events) { deliveredCount($0) == 3 }
        #expect(after == alices.map { .delivered(itemID: $0, status: 201) })
        received = try await server.requests(path: "/notes")
        #expect(received.map(\.bodyText) == [#"{"n":99}"#, #"{"n":0}"#, #"{"n":1}"#, #"{"n":2}"#])
        #expect(received.map { $0.header("Authorization") } == ["Bearer token-b", "Bearer token-a2", "Bearer token-a2", "Bearer token-a2"])
        #expect(try await api.offline.items().isEmpty)
        await api.shutdown()
    }

    @Test("signed out, a user's queued writes wait for them; a write queued without a session goes with whoever is signed in")
    func signedOut() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        try await server.script("/notes", method: "POST", [.json(201, "{}")])
        let api = sessionClient(server.baseURL)
        let events = api.offline.events()
        try await goOffline(api)
        let anonymous = try await api.offline.enqueue(noteWrite(1))   // no session yet: no identity
        try await api.session.signIn(Tokens(accessToken: "token-a", identity: "alice"))
        let alices = try await api.offline.enqueue(noteWrite(2))
        try await api.session.signOut()
        try api.connectivity.report(.online)
        _ = try await api.offline.sync()
        #expect(await collect(events) { $0.contains(where: isWaitingForUser) }.last == .waitingForUser(itemID: alices))
        // The one without identity was tried, and refused for want of a session: it waits, uncounted.
        #expect(try await api.offline.items().map(\.state) == [.queued, .waitingForUser])
        #expect(try await server.requests(path: "/notes").isEmpty)
        try await api.session.signIn(Tokens(accessToken: "token-b", identity: "bob"))
        _ = try await api.offline.sync()
        #expect(try await api.offline.items().map(\.id) == [alices])
        #expect(try await server.requests(path: "/notes").map { $0.header("Authorization") } == ["Bearer token-b"])
        #expect(anonymous < alices)
        await api.shutdown()
    }

    @Test("the session changing between a write's claim and its send: the auth step refuses the other user's token, nothing is sent, and the write waits for its user")
    func sessionChangesMidReplay() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        try await server.script("/notes", method: "POST", [.json(201, "{}")])
        let box = Locked<APIClient?>(nil)
        let api = sessionClient(server.baseURL, interceptors: [SignsInOnFirstNote(client: box, token: "token-b", identity: "bob")])
        box.withLock { $0 = api }
        let events = api.offline.events()
        try await api.session.signIn(Tokens(accessToken: "token-a", identity: "alice"))
        try await goOffline(api)
        let id = try await api.offline.enqueue(noteWrite(1))
        try api.connectivity.report(.online)   // claimed under alice; bob signs in before the auth step
        // A delivery ends the wait too, so a write sent with bob's token fails the test at once.
        let seen = await collect(events) { $0.contains(where: isWaitingForUser) || deliveredCount($0) > 0 }
        #expect(seen.last == .waitingForUser(itemID: id))
        #expect(try await server.requests(path: "/notes").isEmpty)
        #expect(try await api.offline.items().map(\.state) == [.waitingForUser])
        await api.shutdown()
    }

    @Test("the app's identity is saved with the tokens: a restarted client replays the writes queued before under it")
    func identitySurvivesRestart() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        try await server.script("/notes", method: "POST", [.json(201, "{}")])
        let directory = try temporaryDirectory()
        let file = FileTokenPersistence(url: directory.appendingPathComponent("tokens.json"))
        let first = sessionClient(server.baseURL, directory: directory, persistence: file)
        try await first.session.signIn(Tokens(accessToken: "t1", identity: "alice"))
        try await goOffline(first)
        let ids = [try await first.offline.enqueue(noteWrite(1)), try await first.offline.enqueue(noteWrite(2))]
        #expect(try await first.offline.items().map(\.sessionIdentity) == ["alice", "alice"])
        await first.shutdown()
        #expect(try file.load()?.identity == "alice")

        let second = sessionClient(server.baseURL, directory: directory, persistence: file)
        let events = second.offline.events()
        let seen = await collect(events) { deliveredCount($0) == 2 }
        #expect(seen == ids.map { .delivered(itemID: $0, status: 201) })
        let received = try await server.requests(path: "/notes")
        #expect(received.map { $0.header("Authorization") } == ["Bearer t1", "Bearer t1"])
        await second.shutdown()
    }

    @Test("without an identity of the app's, writes bind to nobody: signed out and in again (or restarted), the same user's writes go out with the new token")
    func noIdentityNoParking() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        try await server.script("/notes", method: "POST", [.json(201, "{}")])
        let directory = try temporaryDirectory()
        let file = FileTokenPersistence(url: directory.appendingPathComponent("tokens.json"))
        // Tokens saved by an earlier version: no identity in the file.
        try Data(#"{"accessToken":"t1"}"#.utf8).write(to: file.url)
        let first = sessionClient(server.baseURL, directory: directory, persistence: file)
        try await goOffline(first)
        #expect(try await first.session.state() == .signedIn(expiresAt: nil))
        let id = try await first.offline.enqueue(noteWrite(1))
        #expect(try await first.offline.items().map(\.sessionIdentity) == [nil])
        #expect(try file.load()?.identity == nil)   // nothing made up is saved
        try await first.session.signOut()
        try await first.session.signIn(Tokens(accessToken: "t2"))
        let events = first.offline.events()
        try first.connectivity.report(.online)
        let seen = await collect(events) { deliveredCount($0) == 1 || $0.contains(where: isWaitingForUser) }
        #expect(seen.last == .delivered(itemID: id, status: 201))
        #expect(try await server.requests(path: "/notes").map { $0.header("Authorization") } == ["Bearer t2"])
        await first.shutdown()
    }

    @Test("a queued write keeps its own attempt timeout and deadline across a restart, and its replays use them, not the client's")
    func ownTimeouts() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        // Held longer than the writes' own limits, well within the client's (60 s, 120 s). The
        // limits are seconds, not milliseconds: under ThreadSanitizer beside the whole suite, a
        // refused connection took longer than 300 ms to be seen, and timed out instead.
        try await server.script("/slow", method: "POST", [ScriptedResponse.json(201, "{}").with(delay: 8)])
        // Down until the second client has tried its stored writes at launch (refused: not counted).
        let base = try await server.switchableURL(up: false)
        let directory = try temporaryDirectory()
        let first = offlineClient(base, directory: directory)
        try await goOffline(first)
        let short = RequestOptions(attemptTimeout: .seconds(2))
        let attempt = try await first.offline.enqueue(Endpoint<EmptyResponse>(path: "slow", method: .post, body: ["n": 1], options: short))
        let bounded = RequestOptions(deadline: .seconds(3))
        let deadline = try await first.offline.enqueue(Endpoint<EmptyResponse>(path: "slow", method: .post, body: ["n": 2], options: bounded))
        await first.shutdown()

        let clock = ManualClock()
        let second = offlineClient(base, directory: directory, clock: clock)
        let stored = try await second.offline.items()
        #expect(stored.map(\.attemptTimeout) == [.seconds(2), nil])
        #expect(stored.map(\.deadline) == [nil, .seconds(3)])

        _ = try await second.offline.sync()   // after the launch drain, if it ran: refused, nothing counted
        #expect(try await second.offline.items().map(\.attempts) == [0, 0])
        try await server.setSwitchable(up: true)
        _ = try await second.offline.sync()
        var items = try await second.offline.items()
        #expect(items.map(\.id) == [attempt, deadline])
        #expect(items.first?.state == .retrying)
        #expect(items.first?.lastError?.hasPrefix("timeout (attempt timeout)") == true)
        #expect(items.last?.state == .queued)   // held back by the first
        try await second.offline.remove(attempt)
        _ = try await second.offline.sync()
        items = try await second.offline.items()
        #expect(items.first?.state == .retrying)
        #expect(items.first?.lastError?.hasPrefix("timeout (request deadline)") == true)
        #expect(try await server.requests(path: "/slow").count == 2)
        await second.shutdown()
    }
}
