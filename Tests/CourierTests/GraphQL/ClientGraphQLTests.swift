import CourierTesting
import Foundation
import Testing

@testable import Courier

/// `client.graphQL` against a real GraphQL server (Strawberry on uvicorn, `graphql_server.py`),
/// and the scripted server where a status is needed.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ClientGraphQLTests {
    private func graphQLClient(_ server: VenvServer, configure: (inout APIClient.Configuration) -> Void = { _ in }) -> APIClient {
        client(server.baseURL, configure: configure)
    }

    @Test("a query's data decodes: variables sent, nested lists with nulls")
    func queryDecodes() async throws {
        try await withGraphQLServer { server in
            let api = graphQLClient(server)
            let events = api.events()
            let data = try await api.graphQL.fetch(HeroQuery(variables: .init(id: "1")))
            // The call is named by its operation in its started event (for metrics, logs).
            let started = await collect(events) { $0.contains { if case .started = $0 { true } else { false } } }
            #expect(started.contains { if case .started(_, _, _, "Hero") = $0 { true } else { false } })
            #expect(data.hero?.name == "Luke")
            #expect(data.hero?.id == "1")
            #expect(data.hero?.friends.map { $0?.name } == ["Han", nil])
            #expect(try await api.graphQL.fetch(HeroQuery(variables: .init(id: "9"))).hero == nil)
            await api.shutdown()
        }
    }

    @Test("errors with partial data: thrown as graphQL with message, path, locations and the decoded partial data; result(for:) returns both")
    func partialData() async throws {
        try await withGraphQLServer { server in
            let api = graphQLClient(server)
            do throws(NetworkError) {
                _ = try await api.graphQL.fetch(PartialHeroQuery())
                Issue.record("errors were not thrown")
            } catch {
                guard case .graphQL(let failure) = error else { Issue.record("got \(error)"); return }
                #expect(failure.errors.count == 1)
                #expect(failure.errors.first?.message == "Luke's identity is classified")
                #expect(failure.errors.first?.path == [.field("hero"), .field("secretIdentity")])
                #expect(failure.errors.first?.locations?.first?.line == 1)
                #expect(failure.partialData(as: PartialHeroQuery.Data.self)?.hero?.name == "Luke")
                #expect(failure.response.status == 200)
                #expect(error.description.contains("at hero.secretIdentity"))
            }
            let result = try await api.graphQL.result(for: PartialHeroQuery())
            #expect(result.data?.hero?.name == "Luke")
            #expect(result.data?.hero?.secretIdentity == nil)
            #expect(result.errors.map(\.message) == ["Luke's identity is classified"])
            await api.shutdown()
        }
    }

    @Test("UNAUTHENTICATED in a 200: 300 concurrent queries, one refresh, each replayed once with the new token")
    func unauthenticatedRefreshes() async throws {
        try await withGraphQLServer { server in
            let api = graphQLClient(server) { $0.session = .init(persistence: InMemoryTokenPersistence()) }
            try await api.session.signIn(Tokens(accessToken: "stale", refreshToken: "r1", expiresAt: nil))
            let answers = try await withThrowingTaskGroup(of: String.self) { group in
                // Each its own header: identical queries would share one request.
                for index in 0..<300 {
                    group.addTask {
                        try await api.graphQL.fetch(SecretQuery(), headers: ["X-Caller": "\(index)"], options: RequestOptions(cachePolicy: .networkOnly)).secret
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers == Array(repeating: "42", count: 300))
            let stats = try await server.stats()
            #expect(stats.refreshes == 1)
            #expect(stats.authorizations.filter { $0 == "Bearer fresh" }.count == 300)
            #expect(stats.authorizations.count <= 600)
            await api.shutdown()
        }
    }

    @Test("queries cached and coalesced: 500 identical concurrent queries, one execution; variables in another key order hit the same entry")
    func cachingAndCoalescing() async throws {
        try await withGraphQLServer { server in
            let api = graphQLClient(server) { $0.caching = .init(defaultTTL: .seconds(60)) }
            let names = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<500 {
                    group.addTask { try await api.graphQL.fetch(SlowHeroQuery(variables: .init(id: "3", episode: "EMPIRE"))).slowHero.name }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(names == Array(repeating: "Leia", count: 500))
            #expect(try await server.stats().executions["slowHero"] == 1)
            let reordered = try await api.graphQL.fetch(SlowHeroQueryReordered(variables: .init(episode: "EMPIRE", id: "3")))
            #expect(reordered.slowHero.name == "Leia")
            #expect(try await server.stats().executions["slowHero"] == 1)
            // Other variables are another entry; an invalidation forgets them all.
            _ = try await api.graphQL.fetch(SlowHeroQuery(variables: .init(id: "3", episode: "JEDI")))
            #expect(try await server.stats().executions["slowHero"] == 2)
            try api.graphQL.invalidate(SlowHeroQuery.self)
            _ = try await api.graphQL.fetch(SlowHeroQuery(variables: .init(id: "3", episode: "EMPIRE")))
            #expect(try await server.stats().executions["slowHero"] == 3)
            await api.shutdown()
        }
    }

    @Test("a cached query is never shared across users: another sign-in asks the server again")
    func cacheIsPerUser() async throws {
        try await withGraphQLServer { server in
            let api = graphQLClient(server) {
                $0.caching = .init(defaultTTL: .seconds(60))
                $0.session = .init(persistence: InMemoryTokenPersistence())
            }
            try await api.session.signIn(Tokens(accessToken: "ada", refreshToken: "r", expiresAt: nil))
            _ = try await api.graphQL.fetch(HeroQuery(variables: .init(id: "1")))
            _ = try await api.graphQL.fetch(HeroQuery(variables: .init(id: "1")))
            #expect(try await server.stats().executions["hero"] == 1)
            try await api.session.signOut()
            try await api.session.signIn(Tokens(accessToken: "grace", refreshToken: "r", expiresAt: nil))
            _ = try await api.graphQL.fetch(HeroQuery(variables: .init(id: "1")))
            #expect(try await server.stats().executions["hero"] == 2)
            await api.shutdown()
        }
    }

    @Test("persisted queries: the hash first, the document only after PersistedQueryNotFound, then the hash alone")
    func persistedQueries() async throws {
        try await withGraphQLServer { server in
            let api = graphQLClient(server) { $0.graphQL.persistedQueries = true }
            #expect(try await api.graphQL.fetch(HeroQuery(variables: .init(id: "2"))).hero?.name == "Han")
            var stats = try await server.stats()
            #expect((stats.hashOnly, stats.documents) == (1, 1))
            #expect(try await api.graphQL.fetch(HeroQuery(variables: .init(id: "3"))).hero?.name == "Leia")
            stats = try await server.stats()
            #expect((stats.hashOnly, stats.documents) == (2, 1))
            await api.shutdown()
        }
    }

    @Test("queries as GET: the server answers them; mutations still POST")
    func queriesAsGET() async throws {
        try await withGraphQLServer { server in
            let api = graphQLClient(server) { $0.graphQL.queriesAsGET = true }
            let hero = try await api.graphQL.fetch(HeroQuery(variables: .init(id: "1")))
            let review = try await api.graphQL.perform(AddReview(variables: .init(stars: 5, text: "great")))
            #expect(hero.hero?.name == "Luke")
            #expect(review.addReview >= 1)
            await api.shutdown()
        }
    }

    @Test("a mutation is not retried without an Idempotency-Key, and is with one; a non-2xx GraphQL body keeps its errors")
    func mutationRetries() async throws {
        try await withScriptedServer { server in
            let errors = #"{"errors":[{"message":"busy","extensions":{"code":"UNAVAILABLE"}}]}"#
            try await server.script("/graphql", method: "POST", [
                .json(503, errors), .json(503, errors), .json(200, #"{"data":{"addReview":7}}"#),
            ])
            let api = client(server.baseURL)
            do throws(NetworkError) {
                _ = try await api.graphQL.perform(AddReview(variables: .init(stars: 1, text: "x")))
                Issue.record("a 503 was not thrown")
            } catch {
                guard case .graphQL(let failure) = error else { Issue.record("got \(error)"); return }
                #expect(failure.response.status == 503)
                #expect(failure.errors.first?.code == "UNAVAILABLE")
            }
            #expect(try await server.requests(path: "/graphql").count == 1)
            let added = try await api.graphQL.perform(AddReview(variables: .init(stars: 1, text: "x")), headers: ["Idempotency-Key": "k1"])
            #expect(added.addReview == 7)
            let sent = try await server.requests(path: "/graphql")
            #expect(sent.count == 3)
            #expect(sent.last?.header("Idempotency-Key") == "k1")
            #expect(sent.last?.header("Accept") == "application/graphql-response+json, application/json")
            let body = try #require(try JSONSerialization.jsonObject(with: sent[0].body) as? [String: Any])
            #expect(body["operationName"] as? String == "AddReview")
            #expect(body["query"] as? String == AddReview.document)
            #expect((body["variables"] as? [String: Any])?["stars"] as? Int == 1)
            await api.shutdown()
        }
    }

    @Test("UNAUTHENTICATED beside data is not replayed (the mutation ran); without data it refreshes and replays once")
    func unauthenticatedWithData() async throws {
        try await withScriptedServer { server in
            let withData = #"{"data":{"addReview":7},"errors":[{"message":"no","path":["secret"],"extensions":{"code":"UNAUTHENTICATED"}}]}"#
            try await server.script("/graphql", method: "POST", [.json(200, withData), .json(200, #"{"data":{"addReview":8}}"#)])
            try await server.script("/auth/refresh", method: "POST", [.json(200, #"{"accessToken":"fresh","expiresIn":3600}"#)])
            let api = client(server.baseURL) { $0.session = .init(persistence: InMemoryTokenPersistence()) }
            try await api.session.signIn(Tokens(accessToken: "stale", refreshToken: "r"))
            let result = try await api.graphQL.result(for: AddReview(variables: .init(stars: 1, text: "x")))
            #expect(result.data?.addReview == 7)
            #expect(result.errors.first?.code == "UNAUTHENTICATED")
            #expect(try await server.requests(path: "/graphql").count == 1)
            #expect(try await server.requests(path: "/auth/refresh").isEmpty)
            await api.shutdown()
        }
    }

    @Test("queries as GET: a result with errors is not kept, and invalidate forgets the cached ones")
    func getQueriesCache() async throws {
        try await withGraphQLServer { server in
            let api = graphQLClient(server) {
                $0.graphQL.queriesAsGET = true
                $0.caching = .init(defaultTTL: .seconds(60))
            }
            for _ in 0..<2 { _ = try? await api.graphQL.result(for: PartialHeroQuery()) }
            #expect(try await server.stats().executions["hero"] == 2)   // the errors were not kept
            for _ in 0..<2 { _ = try await api.graphQL.fetch(HeroQuery(variables: .init(id: "2"))) }
            #expect(try await server.stats().executions["hero"] == 3)   // kept
            try api.graphQL.invalidate(HeroQuery.self)
            _ = try await api.graphQL.fetch(HeroQuery(variables: .init(id: "2")))
            #expect(try await server.stats().executions["hero"] == 4)
            await api.shutdown()
        }
    }

    @Test("a subscription part with errors and a null payload ends the sequence with them")
    func subscriptionTransportError() async throws {
        try await withScriptedServer { server in
            let body = "\r\n--graphql\r\ncontent-type: application/json\r\n\r\n{\"payload\":{\"data\":{\"countdown\":3}}}\r\n"
                + "--graphql\r\ncontent-type: application/json\r\n\r\n{\"payload\":null,\"errors\":[{\"message\":\"router lost the subgraph\"}]}\r\n--graphql--\r\n"
            try await server.script("/graphql", method: "POST", [
                .data(200, Data(body.utf8), headers: ["Content-Type": "multipart/mixed;boundary=\"graphql\";subscriptionSpec=\"1.0\""]),
            ])
            let api = client(server.baseURL)
            var values: [Int] = []
            do {
                for try await result in api.graphQL.subscribe(Countdown(variables: .init(start: 3))) {
                    values.append(try #require(result.data).countdown)
                }
                Issue.record("the subscription ended without its error")
            } catch {
                guard case .graphQL(let failure)? = error as? NetworkError else { Issue.record("got \(error)"); return }
                #expect(failure.errors.map(\.message) == ["router lost the subgraph"])
            }
            #expect(values == [3])
            await api.shutdown()
        }
    }

    @Test("a mutation made offline is queued durably and replayed once when the network returns")
    func mutationQueuedOffline() async throws {
        try await withGraphQLServer { server in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-graphql-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let api = offlineClient(server.baseURL, directory: directory)
            let events = api.offline.events()
            let changes = api.connectivity.events()
            try api.connectivity.report(.offline)
            if try api.connectivity.state != .offline {
                _ = await collect(changes) { _ in (try? api.connectivity.state) == .offline }
            }
            let id = await queuedID { () throws(NetworkError) in
                try await api.offline.perform(AddReview(variables: .init(stars: 4, text: "offline")))
            }
            #expect(try await server.stats().executions["addReview"] == nil)
            guard id != nil else { return }
            try api.connectivity.report(.online)
            _ = await collect(events) { deliveredCount($0) == 1 }
            #expect(try await server.stats().executions["addReview"] == 1)
            await api.shutdown()
        }
    }

    @Test("a subscription receives every event, in order, and ends when the server ends it")
    func subscriptionEnds() async throws {
        try await withGraphQLServer { server in
            let api = graphQLClient(server)
            var values: [Int] = []
            for try await result in api.graphQL.subscribe(Countdown(variables: .init(start: 4))) {
                #expect(result.errors.isEmpty)
                values.append(try #require(result.data).countdown)
            }
            #expect(values == [4, 3, 2, 1, 0])
            await api.shutdown()
        }
    }

    @Test("a subscription cancelled after N events closes the connection: the server's generator is closed")
    func subscriptionCancelled() async throws {
        try await withGraphQLServer { server in
            let api = graphQLClient(server)
            var ticks: [Int] = []
            for try await result in api.graphQL.subscribe(Ticks()) {
                ticks.append(try #require(result.data).ticks)
                if ticks.count == 3 { break }
            }
            #expect(ticks == [0, 1, 2])
            // The server notices the closed connection on its next write (every 50 ms).
            var closed = 0
            for _ in 0..<100 where closed == 0 {
                closed = try await server.stats().executions["ticksClosed"] ?? 0
                if closed == 0 { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(closed == 1)
            await api.shutdown()
        }
    }
}
