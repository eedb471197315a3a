import CourierTesting
import Foundation
import Testing

@testable import Courier

/// The normalized cache against the Strawberry server (`graphql_server.py`): a mutation's
/// result renames the hero every watcher of it shows, with no request; a write reaches only
/// the watchers that read what it changed. Requests are counted by the server.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ClientGraphQLRecordsServerTests {
    private func graphQLClient(_ server: VenvServer) -> APIClient {
        client(server.baseURL) { $0.graphQL.normalizedCache = GraphQLNormalizedCacheConfiguration() }
    }

    @Test("a query, a mutation renaming its hero: the query's watcher gives the new name with no request sent")
    func mutationReachesWatcher() async throws {
        try await withGraphQLServer { server in
            let api = graphQLClient(server)
            var watch = api.graphQL.watch(HeroNameQuery(variables: .init(id: "1"))).makeAsyncIterator()
            let first = try await watch.next()
            #expect(first?.data.hero?.name == "Luke")
            #expect(first?.source == .server)
            let renamed = try await api.graphQL.perform(RenameHero(variables: .init(id: "1", name: "Mark")))
            #expect(renamed.renameHero?.name == "Mark")
            let next = try await watch.next()
            #expect(next?.data.hero?.name == "Mark")
            #expect(next?.source == .cache)
            // The query and the mutation, nothing else.
            let stats = try await server.stats()
            #expect(stats.executions["hero"] == 1)
            #expect(stats.executions["renameHero"] == 1)
            #expect(stats.documents == 2)
            #expect(try api.graphQL.read(HeroNameQuery(variables: .init(id: "1"))).hero?.name == "Mark")
            await api.shutdown()
        }
    }

    @Test("500 watchers, 10 of them on the renamed hero: the rename reaches those 10 only, with no request")
    func writeReachesOnlyItsReaders() async throws {
        try await withGraphQLServer { server in
            let api = graphQLClient(server)
            for id in ["1", "2", "3"] { _ = try await api.graphQL.fetch(HeroNameQuery(variables: .init(id: id)), cachePolicy: .networkOnly).data() }
            let (events, sink) = AsyncStream<(index: Int, name: String)>.makeStream()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<500 {
                    // Watchers 0..<10 read hero 1; the others heroes 2 and 3.
                    let id = index < 10 ? "1" : String(2 + index % 2)
                    group.addTask {
                        for try await result in api.graphQL.watch(HeroNameQuery(variables: .init(id: id))) {
                            sink.yield((index, result.data.hero?.name ?? ""))
                        }
                    }
                }
                var iterator = events.makeAsyncIterator()
                for _ in 0..<500 { _ = await iterator.next() }   // every first result: all watching
                _ = try await api.graphQL.perform(RenameHero(variables: .init(id: "1", name: "Mark")))
                var renamed: [Int: String] = [:]
                for _ in 0..<10 {
                    guard let event = await iterator.next() else { break }
                    renamed[event.index] = event.name
                }
                #expect(renamed == Dictionary(uniqueKeysWithValues: (0..<10).map { ($0, "Mark") }))
                // The same field written again reaches the same 10 watchers, and no other.
                let records = try #require(api.graphQL.records)
                let woken = records.write(
                    ["hero": .object(["__typename": .string("Hero"), "id": .string("1"), "name": .string("Luke")])],
                    try records.access(HeroNameQuery(variables: .init(id: "1"))))
                #expect(woken.count == 10)
                group.cancelAll()
            }
            let stats = try await server.stats()
            #expect(stats.executions["hero"] == 3)
            #expect(stats.documents == 4)
            await api.shutdown()
        }
    }

    @Test("an optimistic rename shows at once in the watcher; the server's error rolls it back")
    func optimisticRollback() async throws {
        try await withGraphQLServer { server in
            let api = graphQLClient(server)
            let luke = HeroNameQuery(variables: .init(id: "1"))
            var watch = api.graphQL.watch(luke).makeAsyncIterator()
            #expect(try await watch.next()?.data.hero?.name == "Luke")
            let optimistic: [String: JSONValue] = ["renameHero": .object(["__typename": .string("Hero"), "id": .string("1"), "name": .string("Vader")])]
            let refused = Task { () throws(NetworkError) in
                try await api.graphQL.perform(RenameHero(variables: .init(id: "1", name: "fail")), optimisticResponse: optimistic)
            }
            // The server holds the refusal until released: only the layer can show Vader.
            #expect(try await watch.next()?.data.hero?.name == "Vader")
            try await server.releaseHeldQueries()
            do {
                _ = try await refused.value
                Issue.record("the refused rename succeeded")
            } catch {
                guard case .graphQL(let failure) = error as? NetworkError else { Issue.record("got \(error)"); return }
                #expect(failure.errors.first?.message == "the name was refused")
            }
            #expect(try await watch.next()?.data.hero?.name == "Luke")
            #expect(try api.graphQL.read(luke).hero?.name == "Luke")
            let stats = try await server.stats()
            #expect(stats.executions["hero"] == 1)
            #expect(stats.executions["renameHero"] == 1)
            await api.shutdown()
        }
    }

    @Test("a subscription's events are merged: the watcher of the hero they rename gives the last name, with no query sent")
    func subscriptionEventsReachWatcher() async throws {
        try await withGraphQLServer { server in
            let api = graphQLClient(server)
            let luke = HeroNameQuery(variables: .init(id: "1"))
            var watch = api.graphQL.watch(luke).makeAsyncIterator()
            #expect(try await watch.next()?.data.hero?.name == "Luke")
            var names: [String] = []
            for try await event in api.graphQL.subscribe(HeroRenamed(variables: .init(id: "1", names: ["Mark", "Skywalker"]))) {
                names.append(event.data?.heroRenamed.name ?? "")
            }
            #expect(names == ["Mark", "Skywalker"])
            // Both events were written before the watcher read again: one result, the last.
            #expect(try await watch.next()?.data.hero?.name == "Skywalker")
            #expect(try api.graphQL.read(luke).hero?.name == "Skywalker")
            let stats = try await server.stats()
            #expect(stats.executions["hero"] == 1)
            #expect(stats.executions["heroRenamed"] == 1)
            await api.shutdown()
        }
    }
}
