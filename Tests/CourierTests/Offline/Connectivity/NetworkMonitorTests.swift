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
