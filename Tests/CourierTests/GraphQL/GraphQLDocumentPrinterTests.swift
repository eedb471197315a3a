import Testing

@testable import Courier

/// Printing parsed documents back, with `__typename` added as Apollo's clients send them.
@Suite struct GraphQLDocumentPrinterTests {
    private let text = #"""
        query Hero($id: ID!, $first: Int = 10 @tag(name: "x"), $tags: [String!] = ["a\"b", "ü"]) @cached(ttl: 60) {
          luke: hero(id: $id, filter: {name: "Luke", height: 1.72e0, alive: true, spouse: null, kind: JEDI}) {
            ...HeroFields
            friends(first: $first) @include(if: $withFriends) { name }
            ... on Droid { primaryFunction }
            ... @skip(if: true) { id }
          }
        }
        fragment HeroFields on Character { __typename id name }
        """#

    @Test("a printed document parses back to the same document")
    func roundTrip() throws {
        let document = try GraphQLDocumentParser.parse(text)
        let printed = GraphQLDocumentPrinter.print(document, addingTypename: false)
        #expect(try GraphQLDocumentParser.parse(printed) == document)
        #expect(!printed.contains("\n"))
    }

    @Test("__typename in every selection set but the operation's root, once")
    func addsTypename() throws {
        let document = try GraphQLDocumentParser.parse(text)
        let printed = GraphQLDocumentPrinter.print(document, addingTypename: true)
        #expect(printed.hasPrefix(#"query Hero($id: ID!, $first: Int = 10 @tag(name: "x"), $tags: [String!] = ["a\"b", "ü"]) @cached(ttl: 60) { luke: hero("#))
        #expect(printed.contains(#"{ __typename ...HeroFields friends(first: $first) @include(if: $withFriends) { __typename name } ... on Droid { __typename primaryFunction } ... @skip(if: true) { __typename id } }"#))
        #expect(printed.hasSuffix("fragment HeroFields on Character { __typename id name }"))
        // Printing again adds nothing.
        #expect(GraphQLDocumentPrinter.print(try GraphQLDocumentParser.parse(printed), addingTypename: true) == printed)
    }

    @Test("the query shorthand prints as a query")
    func shorthand() throws {
        #expect(GraphQLDocumentPrinter.print(try GraphQLDocumentParser.parse("{ me { id } }"), addingTypename: true) == "query { me { __typename id } }")
    }
}
