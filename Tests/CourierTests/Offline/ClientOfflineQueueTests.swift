import CourierTesting
import Foundation
import Testing

@testable import Courier

/// `client.offline` without ``APIClient/Configuration/offline``: the rule every optional group
/// follows (each call, the count included, throws `componentUnavailable("offline")`; the event
/// streams finish).
@Suite struct ClientOfflineQueueTests {
    @Test("without an offline queue every call throws componentUnavailable(offline), the count too")
    func unconfiguredCallsThrow() async {
        let api = unconfiguredClient()
        defer { Task { await api.shutdown() } }
        let field = "APIClient.Configuration.offline"
        let write = Endpoint<EmptyResponse>(path: "notes", method: .post, body: ["text": "a"])
        await expectUnavailable("offline", naming: field) { () async throws(NetworkError) in try await api.offline.enqueue(write) }
        await expectUnavailable("offline", naming: field) { () async throws(NetworkError) in try await api.offline.pendingCount }
        await expectUnavailable("offline", naming: field) { () async throws(NetworkError) in try await api.offline.items() }
        await expectUnavailable("offline", naming: field) { () async throws(NetworkError) in try await api.offline.retry(1) }
        await expectUnavailable("offline", naming: field) { () async throws(NetworkError) in try await api.offline.remove(1) }
        await expectUnavailable("offline", naming: field) { () async throws(NetworkError) in try await api.offline.clear() }
        await expectUnavailable("offline", naming: field) { () async throws(NetworkError) in
            try await api.offline.resolveConflict(1, with: .serverWins)
        }
        await expectUnavailable("offline", naming: field) { () async throws(NetworkError) in try await api.offline.sync() }
    }

    @Test("a client with connectivity but no offline queue follows the same rule")
    func connectivityOnly() async {
        let api = client(URL(string: "https://api.test")!, transport: InMemoryTransport(always: HTTPResponse(status: 200))) {
            $0.connectivity = .init(debounce: .zero, watchesLink: false)
        }
        defer { Task { await api.shutdown() } }
        await expectUnavailable("offline", naming: "APIClient.Configuration.offline") { () async throws(NetworkError) in
            try await api.offline.pendingCount
        }
        #expect(await finishesAtOnce(api.offline.events()))
        #expect(await finishesAtOnce(api.offline.progress()))
    }

    @Test("without an offline queue its event streams finish at once")
    func unconfiguredStreamsFinish() async {
        let api = unconfiguredClient()
        defer { Task { await api.shutdown() } }
        #expect(await finishesAtOnce(api.offline.events()))
        #expect(await finishesAtOnce(api.offline.progress()))
    }

    @Test("with an offline queue the count is read")
    func configured() async throws {
        let api = client(URL(string: "https://api.test")!, transport: InMemoryTransport(always: HTTPResponse(status: 200))) {
            $0.offline = .init()
        }
        defer { Task { await api.shutdown() } }
        #expect(try await api.offline.pendingCount == 0)
        #expect(try await api.offline.items().isEmpty)
    }
}
