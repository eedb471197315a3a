import CourierTesting
import Foundation
import Testing

@testable import Courier

/// The builder: which components a configuration gets, and the order they start in (each may
/// send only to those before it).
@Suite struct ClientComponentsTests {
    @Test("a plain client runs the request pipeline alone")
    func plain() {
        let components = ClientComponents(APIClient.Configuration(baseURL: URL(string: "https://api.test")!), base: .failure(.cancelled))
        #expect(components.children.map(\.name) == ["RequestPipeline"])
        #expect(components.tokens == nil && components.cache == nil && components.offline == nil)
    }

    @Test("every component, in supervision order")
    func everything() {
        var configuration = APIClient.Configuration(baseURL: URL(string: "https://api.test")!)
        configuration.session = .init()
        configuration.caching = .init()
        configuration.connectivity = .init(probeURL: URL(string: "https://api.test/health"), watchesLink: true)
        configuration.offline = .init()
        let components = ClientComponents(configuration, base: .failure(.cancelled))
        #expect(components.children.map(\.name) == [
            "TokenStore", "RequestPipeline", "Cache", "NetworkMonitor", "LinkWatcher", "ConnectivityProbe",
            "OfflineQueue", "SyncCoordinator", "ConnectivityForwarder", "SyncTimer",
        ])
        #expect(components.chain.steps.prefix(4).map { "\(type(of: $0.step))" } == ["OfflineGate", "ConnectivityStep", "CacheStep", "AdmissionStep"])
    }

    @Test("connectivity without an offline queue: the monitor and its sources, no queue")
    func connectivityOnly() {
        var configuration = APIClient.Configuration(baseURL: URL(string: "https://api.test")!)
        configuration.connectivity = .init(watchesLink: false)
        let components = ClientComponents(configuration, base: .failure(.cancelled))
        #expect(components.children.map(\.name) == ["RequestPipeline", "NetworkMonitor"])
        #expect(components.offline?.queue == nil)
        // Without a cache, GraphQL queries are coalesced in its place.
        #expect(components.chain.steps.prefix(3).map { "\(type(of: $0.step))" } == ["ConnectivityStep", "QueryCoalescingStep", "AdmissionStep"])
    }
}
