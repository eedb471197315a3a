import CourierTesting
import Foundation
import Testing

@testable import Courier

/// `possibleTypes` loaded by introspection from the Strawberry server (`graphql_server.py`,
/// whose `Character` interface `Hero` and `Droid` implement): a fragment on the interface then
/// applies to a droid, in the records and in reads from them.
@Suite(.serialized, .timeLimit(.minutes(5))) struct GraphQLPossibleTypesTests {
    private let droid = CharacterQuery(variables: .init(id: "2001"))

    @Test("loaded from the server: a fragment on the interface is stored and read for a droid")
    func loadedByIntrospection() async throws {
        try await withGraphQLServer { server in
            let api = client(server.baseURL) { $0.graphQL.normalizedCache = GraphQLNormalizedCacheConfiguration() }
            let types = try await api.graphQL.loadPossibleTypes()
            #expect(types["Character"] == ["Hero", "Droid"])
            let fetched = try await api.graphQL.fetch(droid, cachePolicy: .networkOnly).data()
            #expect(fetched.character?.name == "R2-D2")
            #expect(fetched.character?.primaryFunction == "Astromech")
            // Answered from the records: no second execution.
            let cached = try await api.graphQL.fetch(droid, cachePolicy: .cacheOnly).data()
            #expect(cached == fetched)
            #expect(try await server.stats().executions["character"] == 1)
            await api.shutdown()
        }
    }

    @Test("not loaded: the droid's name from the interface fragment is not in the records")
    func notLoaded() async throws {
        try await withGraphQLServer { server in
            let api = client(server.baseURL) { $0.graphQL.normalizedCache = GraphQLNormalizedCacheConfiguration() }
            _ = try await api.graphQL.fetch(droid, cachePolicy: .networkOnly).data()
            let records = try #require(api.graphQL.records)
            #expect(records.snapshot["Droid:2001"]?.fields["name"] == nil)
            await api.shutdown()
        }
    }

    @Test("the introspection answer: interfaces and unions only, with their concrete types")
    func parsesSchema() throws {
        let json = """
            {"__schema": {"types": [
              {"kind": "OBJECT", "name": "Hero", "possibleTypes": null},
              {"kind": "INTERFACE", "name": "Character", "possibleTypes": [{"name": "Hero"}, {"name": "Droid"}]},
              {"kind": "UNION", "name": "SearchResult", "possibleTypes": [{"name": "Hero"}]}
            ]}}
            """
        let data = try JSONDecoder().decode(GraphQLPossibleTypesQuery.Data.self, from: Data(json.utf8))
        #expect(GraphQLPossibleTypesQuery.possibleTypes(in: data) == ["Character": ["Hero", "Droid"], "SearchResult": ["Hero"]])
    }
}
