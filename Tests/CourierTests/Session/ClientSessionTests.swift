import CourierTesting
import Foundation
import Testing

@testable import Courier

/// `client.session` without ``APIClient/Configuration/session``: the rule every optional group
/// follows (each call throws `componentUnavailable("session")`, the event stream finishes).
@Suite struct ClientSessionTests {
    @Test("without a session every call throws componentUnavailable(session)")
    func unconfiguredCallsThrow() async {
        let api = unconfiguredClient()
        defer { Task { await api.shutdown() } }
        let field = "APIClient.Configuration.session"
        await expectUnavailable("session", naming: field) { () async throws(NetworkError) in
            try await api.session.signIn(Tokens(accessToken: "a", refreshToken: "r", expiresIn: 3600))
        }
        await expectUnavailable("session", naming: field) { () async throws(NetworkError) in try await api.session.signOut() }
        await expectUnavailable("session", naming: field) { () async throws(NetworkError) in try await api.session.refresh() }
        await expectUnavailable("session", naming: field) { () async throws(NetworkError) in try await api.session.state() }
    }

    @Test("without a session its event stream finishes at once")
    func unconfiguredEventsFinish() async {
        let api = unconfiguredClient()
        defer { Task { await api.shutdown() } }
        #expect(await finishesAtOnce(api.session.events()))
    }

    @Test("with a session the calls work and the event stream stays open")
    func configured() async throws {
        let api = client(URL(string: "https://api.test")!, transport: InMemoryTransport(always: HTTPResponse(status: 200))) {
            $0.session = .init()
        }
        defer { Task { await api.shutdown() } }
        let events = api.session.events()
        try await api.session.signIn(Tokens(accessToken: "a", refreshToken: "r", expiresIn: 3600))
        guard case .signedIn? = await collect(events, until: { _ in true }).first else {
            Issue.record("no signedIn event"); return
        }
        #expect(try await api.session.state() != .signedOut)
    }
}
