import Foundation
import Testing

@testable import Courier

/// What an operation sends: its name from the document, canonical variables, the document's hash.
@Suite struct GraphQLRequestBodyTests {
    @Test("the operation's name is the document's; none for an anonymous operation")
    func operationName() {
        #expect(GraphQLRequestBody.operationName(in: "query Hero($id: ID!) { hero(id: $id) { name } }") == "Hero")
        #expect(GraphQLRequestBody.operationName(in: "# a comment\n  mutation AddReview { addReview }") == "AddReview")
        #expect(GraphQLRequestBody.operationName(in: "subscription Ticks{ ticks }") == "Ticks")
        #expect(GraphQLRequestBody.operationName(in: "{ hero { name } }") == nil)
        #expect(GraphQLRequestBody.operationName(in: "query { hero { name } }") == nil)
        #expect(HeroQuery.operationName == "Hero")
    }

    @Test("variables encode with sorted keys: declaration order does not change the bytes")
    func canonicalVariables() throws {
        let one = try GraphQLRequestBody.variablesJSON(SlowHeroQuery.Variables(id: "3", episode: "JEDI"))
        let other = try GraphQLRequestBody.variablesJSON(SlowHeroQueryReordered.Variables(episode: "JEDI", id: "3"))
        #expect(one == other)
        #expect(one.map { String(decoding: $0, as: UTF8.self) } == #"{"episode":"JEDI","id":"3"}"#)
        #expect(try GraphQLRequestBody.variablesJSON(GraphQLNoVariables()) == nil)
    }
}
