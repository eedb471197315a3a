import CourierTesting
import Foundation
import Testing

@testable import Courier

/// `client.graphQL` against servers as they answer (`graphql_server.py`'s routes, each the same
/// Strawberry schema answered as another server does): GraphQL over HTTP's 4xx
/// `UNAUTHENTICATED`, a query's `UNAUTHENTICATED` beside data, persisted queries a server does
/// not support, coalescing without a cache, GET queries a server refuses. Asserts count what
/// the server saw.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ClientGraphQLServerAnswersTests {
    private func graphQLClient(
        _ server: VenvServer, path: String = "graphql", configure: (inout APIClient.Configuration) -> Void = { _ in }
    ) -> APIClient {
        client(server.baseURL) {
            $0.graphQL.path = path
            configure(&$0)
        }
    }

    @Test("a 400 application/graphql-response+json UNAUTHENTICATED without data (Ariadne) takes the 401 renewal: one refresh, one replay")
    func unauthenticatedIn4xxRenews() async throws {
        try await withGraphQLServer { server in
            // Without a session the server's answer shows through: a 400 with the error.
            let anonymous = graphQLClient(server, path: "ariadne/graphql")
            do throws(NetworkError) {
                _ = try await anonymous.graphQL.fetch(SecretQuery())
                Issue.record("the refusal was not thrown")
            } catch {
                guard case .graphQL(let failure) = error else { Issue.record("got \(error)"); return }
                #expect(failure.response.status == 400)
                #expect(failure.response.headers["Content-Type"] == "application/graphql-response+json")
                #expect(failure.errors.first?.code == "UNAUTHENTICATED")
            }
            await anonymous.shutdown()

            let api = graphQLClient(server, path: "ariadne/graphql") { $0.session = .init(persistence: InMemoryTokenPersistence()) }
            try await api.session.signIn(Tokens(accessToken: "stale", refreshToken: "r1", expiresAt: nil))
            #expect(try await api.graphQL.fetch(SecretQuery()).secret == "42")
            let stats = try await server.stats()
            #expect(stats.refreshes == 1)
            #expect(stats.authorizations == ["", "Bearer stale", "Bearer fresh"])
            #expect(stats.route("ariadne").requests == 3)
            await api.shutdown()
        }
    }

    @Test("a query whose UNAUTHENTICATED sits beside partial data is renewed and sent again; its result is whole")
    func queryWithPartialDataRenews() async throws {
        try await withGraphQLServer { server in
            let api = graphQLClient(server) { $0.session = .init(persistence: InMemoryTokenPersistence()) }
            try await api.session.signIn(Tokens(accessToken: "stale", refreshToken: "r1", expiresAt: nil))
            let result = try await api.graphQL.result(for: PartialSecretQuery())
            #expect(result.errors.isEmpty)
            #expect(result.data?.hero?.name == "Luke")
            #expect(result.data?.maybeSecret == "42")
            let stats = try await server.stats()
            #expect(stats.refreshes == 1)
            #expect(stats.executions["maybeSecret"] == 2)
            #expect(stats.authorizations == ["Bearer stale", "Bearer fresh"])
            await api.shutdown()
        }
    }

    @Test("persisted queries against a server without them (a 400 to the hash): the document is sent, and hashes stop for the endpoint")
    func persistedQueriesFallBackOn400() async throws {
        try await withGraphQLServer { server in
            let api = graphQLClient(server, path: "noapq/graphql") { $0.graphQL.persistedQueries = true }
            #expect(try await api.graphQL.fetch(HeroQuery(variables: .init(id: "1"))).hero?.name == "Luke")
            #expect(try await api.graphQL.fetch(HeroQuery(variables: .init(id: "2"))).hero?.name == "Han")
            #expect(try await api.graphQL.result(for: PartialHeroQuery()).data?.hero?.name == "Luke")
            let seen = try await server.stats().route("noapq")
            // The hash once; then documents only, without the extension.
            #expect(seen == .init(requests: 4, documents: 3, hashOnly: 1, persisted: 1))
            await api.shutdown()
        }
    }

    @Test("persisted queries answered PersistedQueryNotSupported: the document is sent, and hashes stop for the endpoint")
    func persistedQueriesFallBackOnNotSupported() async throws {
        try await withGraphQLServer { server in
            let api = graphQLClient(server, path: "apqunsupported/graphql") { $0.graphQL.persistedQueries = true }
            #expect(try await api.graphQL.fetch(HeroQuery(variables: .init(id: "1"))).hero?.name == "Luke")
            #expect(try await api.graphQL.fetch(HeroQuery(variables: .init(id: "3"))).hero?.name == "Leia")
            #expect(try await server.stats().route("apqunsupported") == .init(requests: 3, documents: 2, hashOnly: 1, persisted: 1))
            // Another client starts with hashes again: what is remembered is per client.
            let other = graphQLClient(server, path: "apqunsupported/graphql") { $0.graphQL.persistedQueries = true }
            _ = try await other.graphQL.fetch(HeroQuery(variables: .init(id: "1")))
            #expect(try await server.stats().route("apqunsupported").persisted == 2)
            await other.shutdown()
            await api.shutdown()
        }
    }

    @Test("without a cache, 200 identical concurrent queries share one request: one execution")
    func coalescedWithoutCache() async throws {
        try await withGraphQLServer { server in
            let api = graphQLClient(server)
            var events = api.events(buffer: 1_000).makeAsyncIterator()
            // The server holds the one request until the 199 others share it (their `shared`
            // events): none comes after the answer, however slow the machine.
            let query = SlowHeroQuery(variables: .init(id: "3", episode: "HELD"))
            let fetches = Task {
                try await withThrowingTaskGroup(of: String.self) { group in
                    for _ in 0..<200 { group.addTask { try await api.graphQL.fetch(query).slowHero.name } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            try await server.waitForExecutions(of: "slowHero", count: 1)
            await Self.waitForShared(199, &events)
            try await server.releaseHeldQueries()
            #expect(try await fetches.value == Array(repeating: "Leia", count: 200))
            #expect(try await server.stats().executions["slowHero"] == 1)
            // Done, the next one asks again.
            _ = try await api.graphQL.fetch(query)
            #expect(try await server.stats().executions["slowHero"] == 2)
            await api.shutdown()
        }
    }

    @Test("without a cache, a caller of a shared query cancelled: it gets cancelled, the others their answer, one execution")
    func cancelledCallerLeavesTheOthers() async throws {
        try await withGraphQLServer { server in
            let api = graphQLClient(server)
            var events = api.events(buffer: 1_000).makeAsyncIterator()
            // The server holds the query until the cancelled caller has left; the others share
            // it before (their `shared` events): none comes after the answer.
            let query = SlowHeroQuery(variables: .init(id: "2", episode: "HELD"))
            let first = Task { try await api.graphQL.fetch(query).slowHero.name }
            try await server.waitForExecutions(of: "slowHero", count: 1)
            let others = Task {
                try await withThrowingTaskGroup(of: String.self) { group in
                    for _ in 0..<20 { group.addTask { try await api.graphQL.fetch(query).slowHero.name } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            await Self.waitForShared(20, &events)
            let leaving = Task { try await api.graphQL.fetch(query).slowHero.name }
            await Self.waitForShared(1, &events)
            leaving.cancel()
            let answer = await leaving.result
            guard case .failure(let error) = answer, case .cancelled? = error as? NetworkError else {
                Issue.record("the cancelled caller got \(answer)")
                return
            }
            try await server.releaseHeldQueries()
            #expect(try await first.value == "Han")
            #expect(try await others.value == Array(repeating: "Han", count: 20))
            #expect(try await server.stats().executions["slowHero"] == 1)
            await api.shutdown()
        }
    }

    /// Returns once `count` more requests were published as sharing another's answer.
    private static func waitForShared(_ count: Int, _ events: inout AsyncStream<RequestEvent>.Iterator) async {
        var shared = 0
        while shared < count, let event = await events.next() {
            if case .shared = event { shared += 1 }
        }
    }

    @Test("a GET query answered 405, or with an HTML page, throws an error that says the server does not accept GET queries")
    func getRefused() async throws {
        try await withGraphQLServer { (server: VenvServer) async throws in
            for (route, says) in [("postonly", "405"), ("html", "HTML page")] {
                let api = graphQLClient(server, path: "\(route)/graphql") { $0.graphQL.queriesAsGET = true }
                do throws(NetworkError) {
                    _ = try await api.graphQL.fetch(HeroQuery(variables: .init(id: "1")))
                    Issue.record("\(route): the GET was not refused")
                } catch {
                    guard case .invalidResponse(let message) = error else { Issue.record("\(route): got \(error)"); continue }
                    #expect(message.contains("does not accept GET queries"))
                    #expect(message.contains(says))
                    #expect(message.contains("queriesAsGET"))
                }
                // Mutations still POST.
                #expect(try await api.graphQL.perform(AddReview(variables: .init(stars: 5, text: route))).addReview >= 1)
                #expect(try await server.stats().route(route).requests == 2)
                await api.shutdown()
            }
        }
    }
}
