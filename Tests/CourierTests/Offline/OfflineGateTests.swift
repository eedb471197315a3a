import CourierTesting
import Foundation
import Testing

@testable import Courier

/// The offline gate's rule (docs/offline.md): a write sent with `client.offline.send` is queued
/// when connectivity says offline, when the OS says so (`noConnection`), or when its host is not
/// found or unreachable while the monitor has no evidence; never because one server refused it.
@Suite(.timeLimit(.minutes(5))) struct OfflineGateTests {
    @Test("a write refused while connectivity says online fails with cannotConnect, is not queued, and the monitor stays online")
    func refusedWhileOnlineIsNotQueued() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        let base = try await server.switchableURL(up: true)
        try await server.script("/ping", [.status(200)])
        let api = offlineClient(base)
        let changes = api.connectivity.events()
        _ = try await api.data(for: Endpoint<EmptyResponse>(path: "ping"))
        #expect(try await settledConnectivity(api) == .online)
        try await server.setSwitchable(up: false)

        let error = await #expect(throws: NetworkError.self) { try await api.offline.send(noteWrite(1)) }
        guard case .cannotConnect("127.0.0.1", let port, .refused, _)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(port == base.port)
        #expect(try await api.offline.pendingCount == 0)
        // Told in order after the failure: a later report is the only change, so the refusal said nothing.
        #expect(try await settledConnectivity(api) == .online)
        try api.connectivity.report(.offline)
        let seen = await collect(changes) { $0.count == 2 }
        #expect(seen == [ConnectivityEvent(state: .online, source: .requests), ConnectivityEvent(state: .offline, source: .manual)])
        await api.shutdown()
    }

    @Test("a write refused while the monitor has no evidence is not queued either: a refusal is never offline")
    func refusedWithoutEvidenceIsNotQueued() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        let api = offlineClient(try await server.switchableURL(up: false))
        let error = await #expect(throws: NetworkError.self) { try await api.offline.send(noteWrite(1)) }
        guard case .cannotConnect(_, _, .refused, _)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(try await api.offline.pendingCount == 0)
        #expect(try await settledConnectivity(api) == .unknown)
        await api.shutdown()
    }

    @Test("a host not found while the monitor has no evidence is queued (what an offline machine answers); while online it fails")
    func hostNotFoundRule() async throws {
        let base = URL(string: "https://courier-gate.invalid")!
        let unknown = offlineClient(base)
        let id = await queuedID { () throws(NetworkError) in try await unknown.offline.send(noteWrite(1)) }
        #expect(id != nil)
        let items = try await unknown.offline.items()
        #expect(items.map(\.id) == [try #require(id)])
        #expect(items.first?.keyMayBeInProgress == false)   // no connection was made: nothing was sent
        await unknown.shutdown()

        let online = offlineClient(base)
        try online.connectivity.report(.online)
        _ = try await settledConnectivity(online)
        let error = await #expect(throws: NetworkError.self) { try await online.offline.send(noteWrite(2)) }
        guard case .cannotConnect("courier-gate.invalid", 443, .hostNotFound, _)? = error else {
            Issue.record("got \(String(describing: error))"); return
        }
        #expect(try await online.offline.pendingCount == 0)
        await online.shutdown()
    }

    @Test("the OS saying the device is offline queues the write; a lost connection while online does not")
    func osOfflineQueuesLostDoesNot() async throws {
        let offlineTransport = ScriptedTransport(fallback: .fail(.noConnection(underlying: nil)))
        let grounded = client(URL(string: "https://api.test")!, transport: offlineTransport, retryPolicy: .never) {
            $0.connectivity = .init(debounce: .zero, watchesLink: false)
            $0.offline = .init()
        }
        #expect(await queuedID { () throws(NetworkError) in try await grounded.offline.send(noteWrite(1)) } != nil)
        #expect(try await settledConnectivity(grounded) == .offline)   // and the monitor learnt it
        await grounded.shutdown()

        let lostTransport = ScriptedTransport(fallback: .fail(.connectionLost(host: "api.test", port: 443, underlying: nil)))
        let cut = client(URL(string: "https://api.test")!, transport: lostTransport, retryPolicy: .never) {
            $0.connectivity = .init(debounce: .zero, watchesLink: false)
            $0.offline = .init()
        }
        try cut.connectivity.report(.online)
        _ = try await settledConnectivity(cut)
        let error = await #expect(throws: NetworkError.self) { try await cut.offline.send(noteWrite(2)) }
        guard case .connectionLost? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(try await cut.offline.pendingCount == 0)
        #expect(try await settledConnectivity(cut) == .online)
        await cut.shutdown()
    }

    @Test(
        "a write the server answered (500), or that was cancelled, while the link went down during the attempt is not queued",
        arguments: [NetworkError.serverError(HTTPResponse(status: 500)), .cancelled, .conflict(HTTPResponse(status: 409))])
    func answeredWhileGoingOfflineIsNotQueued(outcome: NetworkError) async throws {
        let transport = LinkDropTransport(outcome: outcome)
        let api = client(URL(string: "https://api.test")!, transport: transport, retryPolicy: .never) {
            $0.connectivity = .init(debounce: .zero, watchesLink: false)
            $0.offline = .init()
        }
        try api.connectivity.report(.online)
        _ = try await settledConnectivity(api)
        transport.duringSend.withLock {
            $0 = {
                try? api.connectivity.report(.offline)
                _ = try? await settledConnectivity(api)
            }
        }
        let error = await #expect(throws: NetworkError.self) { try await api.offline.send(noteWrite(1)) }
        #expect(error?.category == outcome.category)
        #expect(transport.sent == 1)
        // The server's answer says the link is back; a cancellation says nothing.
        #expect(try await settledConnectivity(api) == (outcome.response == nil ? .offline : .online))
        #expect(try await api.offline.pendingCount == 0)
        await api.shutdown()
    }

    @Test("a connection lost while the link went down during the attempt is queued, its key maybe in progress")
    func lostWhileGoingOfflineIsQueued() async throws {
        let transport = LinkDropTransport(outcome: .connectionLost(host: "api.test", port: 443, underlying: nil))
        let api = client(URL(string: "https://api.test")!, transport: transport, retryPolicy: .never) {
            $0.connectivity = .init(debounce: .zero, watchesLink: false)
            $0.offline = .init()
        }
        try api.connectivity.report(.online)
        _ = try await settledConnectivity(api)
        transport.duringSend.withLock {
            $0 = {
                try? api.connectivity.report(.offline)
                _ = try? await settledConnectivity(api)
            }
        }
        let id = await queuedID { () throws(NetworkError) in try await api.offline.send(noteWrite(1)) }
        let items = try await api.offline.items()
        #expect(items.map(\.id) == [try #require(id)])
        #expect(items.first?.keyMayBeInProgress == true)
        await api.shutdown()
    }
}

/// A transport whose one exchange runs `duringSend` (the link going down mid-attempt), then
/// ends with `outcome`: a status the server answered with, or an error.
private final class LinkDropTransport: HTTPTransport, Sendable {
    let outcome: NetworkError
    let duringSend = Locked<(@Sendable () async -> Void)?>(nil)
    private let count = Locked(0)

    init(outcome: NetworkError) {
        self.outcome = outcome
    }

    /// How many exchanges were sent.
    var sent: Int { count.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws(NetworkError) -> HTTPResponse {
        count.withLock { $0 += 1 }
        await duringSend.withLock { $0 }?()
        // A status error stands for the server's answer: send that response, as a server would.
        if let response = outcome.response { return response }
        throw outcome
    }
}
