import CourierTesting
import Foundation
import Testing

@testable import Courier

/// `client.cache` without ``APIClient/Configuration/caching``: the rule every optional group
/// follows (each call throws `componentUnavailable("cache")`, the event stream finishes), where
/// invalidations used to do nothing and the counters said zero.
@Suite struct ClientCacheTests {
    @Test("without a cache every call throws componentUnavailable(cache)")
    func unconfiguredCallsThrow() async {
        let api = unconfiguredClient()
        defer { Task { await api.shutdown() } }
        let field = "APIClient.Configuration.caching"
        await expectUnavailable("cache", naming: field) { () async throws(NetworkError) in
            try api.cache.invalidate(Endpoint<Data>(path: "users/42"))
        }
        await expectUnavailable("cache", naming: field) { () async throws(NetworkError) in try api.cache.invalidate(under: "users") }
        await expectUnavailable("cache", naming: field) { () async throws(NetworkError) in try api.cache.clearExpired() }
        await expectUnavailable("cache", naming: field) { () async throws(NetworkError) in try api.cache.clear() }
        await expectUnavailable("cache", naming: field) { () async throws(NetworkError) in try await api.cache.stats() }
    }

    @Test("without a cache its event stream finishes at once")
    func unconfiguredEventsFinish() async {
        let api = unconfiguredClient()
        defer { Task { await api.shutdown() } }
        #expect(await finishesAtOnce(api.cache.events()))
    }

    @Test("with a cache the calls work")
    func configured() async throws {
        let api = client(URL(string: "https://api.test")!, transport: InMemoryTransport(always: HTTPResponse(status: 200))) {
            $0.caching = .init()
        }
        defer { Task { await api.shutdown() } }
        try api.cache.invalidate(under: "users")
        try api.cache.clearExpired()
        try api.cache.clear()
        #expect(try await api.cache.stats().entries == 0)
    }
}
