import CourierTesting
import Foundation
import Testing

@testable import Courier

/// A mutation queued offline with an optimistic response, against the Strawberry server
/// (`graphql_server.py`): its layer shows at once, stays while the write waits, and is replaced
/// by the replay's answer, or rolled back when the queue gives the write up.
@Suite(.serialized, .timeLimit(.minutes(5))) struct QueuedOptimisticLayerTests {
    private let luke = HeroNameQuery(variables: .init(id: "1"))

    private func offlineGraphQLClient(_ server: VenvServer) -> APIClient {
        client(server.baseURL, retryPolicy: .never, clock: ManualClock()) {
            $0.connectivity = .init(debounce: .zero, watchesLink: false)
            $0.offline = .init(retryBackoff: .constant(.seconds(10)))
            $0.graphQL.normalizedCache = GraphQLNormalizedCacheConfiguration()
        }
    }

    private func goOffline(_ api: APIClient) async throws {
        let changes = api.connectivity.events()
        try api.connectivity.report(.offline)
        if try api.connectivity.state != .offline {
            _ = await collect(changes) { _ in (try? api.connectivity.state) == .offline }
        }
    }

    private static func renamed(_ name: String) -> [String: JSONValue] {
        ["renameHero": .object(["__typename": .string("Hero"), "id": .string("1"), "name": .string(name)])]
    }

    @Test("queued offline: the layer shows at once and stays; the replay's answer replaces it")
    func replayReplacesLayer() async throws {
        try await withGraphQLServer { server in
            let api = offlineGraphQLClient(server)
            var watch = api.graphQL.watch(luke).makeAsyncIterator()
            #expect(try await watch.next()?.data.hero?.name == "Luke")
            try await goOffline(api)
            let events = api.offline.events()
            let id = await queuedID { () throws(NetworkError) in
                try await api.offline.perform(RenameHero(variables: .init(id: "1", name: "Mark")), optimisticResponse: Self.renamed("Mark (saving)"))
            }
            guard id != nil else { return }
            #expect(try await watch.next()?.data.hero?.name == "Mark (saving)")
            #expect(try await server.stats().executions["renameHero"] == nil)
            try api.connectivity.report(.online)
            _ = await collect(events) { deliveredCount($0) == 1 }
            // The server's answer, not the layer: the layer is gone.
            #expect(try await watch.next()?.data.hero?.name == "Mark")
            #expect(try api.graphQL.read(luke).hero?.name == "Mark")
            let stats = try await server.stats()
            #expect(stats.executions["renameHero"] == 1)
            #expect(stats.executions["hero"] == 1)
            await api.shutdown()
        }
    }

    @Test("queued offline, then removed: the layer is rolled back and nothing is sent")
    func removalRollsBack() async throws {
        try await withGraphQLServer { server in
            let api = offlineGraphQLClient(server)
            var watch = api.graphQL.watch(luke).makeAsyncIterator()
            #expect(try await watch.next()?.data.hero?.name == "Luke")
            try await goOffline(api)
            let id = await queuedID { () throws(NetworkError) in
                try await api.offline.perform(RenameHero(variables: .init(id: "1", name: "Vader")), optimisticResponse: Self.renamed("Vader"))
            }
            guard let id else { return }
            #expect(try await watch.next()?.data.hero?.name == "Vader")
            try await api.offline.remove(id)
            #expect(try await watch.next()?.data.hero?.name == "Luke")
            #expect(try api.graphQL.read(luke).hero?.name == "Luke")
            #expect(try await server.stats().executions["renameHero"] == nil)
            await api.shutdown()
        }
    }

    @Test("sent while online: as the plain optimistic perform, the answer replaces the layer")
    func sentOnline() async throws {
        try await withGraphQLServer { server in
            let api = offlineGraphQLClient(server)
            var watch = api.graphQL.watch(luke).makeAsyncIterator()
            #expect(try await watch.next()?.data.hero?.name == "Luke")
            let delivery = try await api.offline.perform(
                RenameHero(variables: .init(id: "1", name: "Mark")), optimisticResponse: Self.renamed("Mark (saving)"))
            guard case .sent(let data) = delivery else { Issue.record("expected sent, got \(delivery)"); return }
            #expect(data.renameHero?.name == "Mark")
            #expect(try api.graphQL.read(luke).hero?.name == "Mark")
            await api.shutdown()
        }
    }
}
