import CourierTesting
import Foundation
import Testing

@testable import Courier

/// The monitor's published state once it has handled every message sent before this call.
func settledConnectivity(_ api: APIClient) async throws -> ConnectivityState {
    try await api.components.offline!.monitor.ask { .state($0) }
}

@Suite(.timeLimit(.minutes(5))) struct NetworkMonitorTests {
    @Test("the probe: a health URL that stops answering is offline at once, probed again soon, then less often; back up, online")
    func probe() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        let base = try await server.switchableURL(up: true)
        try await server.script("/health", [.status(204)])
        let clock = ManualClock()
        let api = client(base, retryPolicy: .never, clock: clock) {
            $0.connectivity = .init(
                probeURL: base.appendingPathComponent("health"), probeInterval: .seconds(30), probeRetryDelay: .seconds(1),
                debounce: .zero, watchesLink: false)
        }
        await clock.waitForSleepers(1)
        #expect(try await settledConnectivity(api) == .online)
        #expect(clock.pendingDelays == [.seconds(30)])

        try await server.setSwitchable(up: false)
        clock.advance(by: .seconds(30))
        await clock.waitForSleepers(1)
        #expect(try await settledConnectivity(api) == .offline)
        #expect(clock.pendingDelays == [.seconds(1)])   // soon after a failure
        clock.advance(by: .seconds(1))
        await clock.waitForSleepers(1)
        #expect(clock.pendingDelays == [.seconds(2)])   // then backing off

        try await server.setSwitchable(up: true)
        clock.advance(by: .seconds(2))
        await clock.waitForSleepers(1)
        #expect(try await settledConnectivity(api) == .online)
        #expect(clock.pendingDelays == [.seconds(30)])
        #expect(try await server.requests(path: "/health").count == 2)
        await api.shutdown()
    }

    @Test("a name that does not resolve makes the monitor probe now (not in 30 s), and publishes nothing itself; a refusal does not")
    func suspectProbesNow() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        try await server.script("/health", [.status(204)])
        let clock = ManualClock()
        let api = client(URL(string: "http://courier-suspect.invalid")!, retryPolicy: .never, clock: clock) {
            $0.security = nil
            $0.connectivity = .init(
                probeURL: server.baseURL.appendingPathComponent("health"), probeInterval: .seconds(30), probeRetryDelay: .seconds(1),
                debounce: .zero, watchesLink: false)
        }
        await clock.waitForSleepers(1)
        #expect(try await settledConnectivity(api) == .online)
        clock.advance(by: .seconds(5))
        #expect(try await server.requests(path: "/health").count == 1)

        let failure = await #expect(throws: NetworkError.self) { try await api.data(for: Endpoint<EmptyResponse>(path: "ping")) }
        guard case .cannotConnect(_, _, .hostNotFound, _)? = failure else { Issue.record("got \(String(describing: failure))"); return }
        // The monitor has the suspicion (it handles its mailbox in order) and has not gone offline on it.
        #expect(try await settledConnectivity(api) == .online)
        await waitUntil { (try? await server.requests(path: "/health").count) == 2 }
        await waitUntil { clock.pendingDelays == [.seconds(30)] }   // back on its rhythm
        #expect(try await settledConnectivity(api) == .online)
        await api.shutdown()

        // A refused connection is one server's trouble: no probe.
        let closed = try await server.switchableURL(up: false)
        let refusing = client(closed, retryPolicy: .never, clock: clock) {
            $0.connectivity = .init(
                probeURL: server.baseURL.appendingPathComponent("health"), probeInterval: .seconds(30), debounce: .zero, watchesLink: false)
        }
        await waitUntil { (try? await server.requests(path: "/health").count) == 3 }
        await clock.waitForSleepers(1)
        let refused = await #expect(throws: NetworkError.self) { try await refusing.data(for: Endpoint<EmptyResponse>(path: "ping")) }
        guard case .cannotConnect(_, _, .refused, _)? = refused else { Issue.record("got \(String(describing: refused))"); return }
        #expect(try await settledConnectivity(refusing) == .online)
        #expect(clock.pendingDelays == [.seconds(30)])
        #expect(try await server.requests(path: "/health").count == 3)
        await refusing.shutdown()
    }

    @Test("a woken probe keeps probeRetryDelay from the last one: a burst of failures costs one probe")
    func wokenProbeIsSpaced() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        try await server.script("/health", [.status(204)])
        let clock = ManualClock()
        let api = client(URL(string: "http://courier-suspect.invalid")!, retryPolicy: .never, clock: clock) {
            $0.security = nil
            $0.connectivity = .init(
                probeURL: server.baseURL.appendingPathComponent("health"), probeInterval: .seconds(30), probeRetryDelay: .seconds(4),
                debounce: .zero, watchesLink: false)
        }
        await clock.waitForSleepers(1)
        #expect(try await settledConnectivity(api) == .online)
        for _ in 0..<3 { _ = try? await api.data(for: Endpoint<EmptyResponse>(path: "ping")) }
        _ = try await settledConnectivity(api)
        await waitUntil { clock.pendingDelays == [.seconds(4)] }   // woken, waiting out the spacing
        #expect(try await server.requests(path: "/health").count == 1)
        clock.advance(by: .seconds(4))
        await waitUntil { (try? await server.requests(path: "/health").count) == 2 }
        await waitUntil { clock.pendingDelays == [.seconds(30)] }
        #expect(try await server.requests(path: "/health").count == 2)
        await api.shutdown()
    }

    @Test("request outcomes: a refused connection says nothing, a response says online, the OS saying offline says offline")
    func requestOutcomes() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        let base = try await server.switchableURL(up: false)
        try await server.script("/ping", [.status(200)])
        let api = client(base, retryPolicy: .never) { $0.connectivity = .init(debounce: .zero, watchesLink: false) }
        let changes = api.connectivity.events()
        let refused = await #expect(throws: NetworkError.self) { try await api.data(for: Endpoint<EmptyResponse>(path: "ping")) }
        guard case .cannotConnect(_, _, .refused, _)? = refused else { Issue.record("got \(String(describing: refused))"); return }
        #expect(try await settledConnectivity(api) == .unknown)
        try await server.setSwitchable(up: true)
        _ = try await api.data(for: Endpoint<EmptyResponse>(path: "ping"))
        #expect(try await settledConnectivity(api) == .online)
        // What the monitor was told arrives in order: had the refusal said offline, it would come first.
        let seen = await collect(changes) { $0.count == 1 }
        #expect(seen == [ConnectivityEvent(state: .online, source: .requests)])
        await api.shutdown()

        let offline = ScriptedTransport(fallback: .fail(.noConnection(underlying: nil)))
        let grounded = client(base, transport: offline, retryPolicy: .never) { $0.connectivity = .init(debounce: .zero, watchesLink: false) }
        _ = try? await grounded.data(for: Endpoint<EmptyResponse>(path: "ping"))
        #expect(try await settledConnectivity(grounded) == .offline)
        await grounded.shutdown()
    }

    @Test("the OS link source: where netlink can be opened, the first state published is the link's")
    func linkSource() async throws {
        guard LinkWatcher.open().map({ $0.close(); return true }) ?? false else { return }
        let api = client(URL(string: "http://127.0.0.1:9")!) { $0.connectivity = .init(debounce: .zero) }
        await waitUntil { (try? api.connectivity.state) != .unknown }
        #expect(try api.connectivity.state == (LinkWatcher.hasUsableLink() ? .online : .offline))
        await api.shutdown()
    }
}
