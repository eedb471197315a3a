import CourierTesting
import Foundation
import Testing

@testable import Courier

/// `client.connectivity` without ``APIClient/Configuration/connectivity`` or
/// ``APIClient/Configuration/offline``: the rule every optional group follows (the state and
/// reports throw `componentUnavailable("connectivity")`, the event stream finishes), where it
/// used to say `unknown` and ignore reports.
@Suite struct ClientConnectivityTests {
    @Test("without a monitor the state and reports throw componentUnavailable(connectivity)")
    func unconfiguredCallsThrow() async {
        let api = unconfiguredClient()
        defer { Task { await api.shutdown() } }
        let field = "APIClient.Configuration.connectivity"
        await expectUnavailable("connectivity", naming: field) { () async throws(NetworkError) in try api.connectivity.state }
        await expectUnavailable("connectivity", naming: field) { () async throws(NetworkError) in try api.connectivity.report(.offline) }
    }

    @Test("without a monitor its event stream finishes at once")
    func unconfiguredEventsFinish() async {
        let api = unconfiguredClient()
        defer { Task { await api.shutdown() } }
        #expect(await finishesAtOnce(api.connectivity.events()))
    }

    @Test("an offline queue alone gives the client a monitor")
    func offlineGivesAMonitor() async throws {
        let api = client(URL(string: "https://api.test")!, transport: InMemoryTransport(always: HTTPResponse(status: 200))) {
            $0.offline = .init()
        }
        defer { Task { await api.shutdown() } }
        #expect(try api.connectivity.state == .unknown)
        try api.connectivity.report(.offline)
    }

    @Test("with a monitor a report is published")
    func configured() async throws {
        let api = client(URL(string: "https://api.test")!, transport: InMemoryTransport(always: HTTPResponse(status: 200))) {
            $0.connectivity = .init(debounce: .zero, watchesLink: false, learnsFromRequests: false)
        }
        defer { Task { await api.shutdown() } }
        try api.connectivity.report(.offline)
        await waitUntil { (try? api.connectivity.state) == .offline }
    }

    @Test("after shutdown a report throws componentUnavailable")
    func afterShutdown() async {
        let api = client(URL(string: "https://api.test")!, transport: InMemoryTransport(always: HTTPResponse(status: 200))) {
            $0.connectivity = .init(debounce: .zero, watchesLink: false)
        }
        await api.shutdown()
        do {
            try api.connectivity.report(.online)
            Issue.record("the report was taken")
        } catch .componentUnavailable(let name) {
            #expect(name == "NetworkMonitor")
        } catch {
            Issue.record("got \(error)")
        }
    }
}
