import CourierTesting
import Foundation
import Testing

@testable import Courier

/// The executable-document parser: the spec's grammar, and errors that name line and column.
@Suite struct GraphQLDocumentParserTests {
    private typealias Document = GraphQLExecutableDocument

    private func field(_ name: String, alias: String? = nil, _ arguments: [Document.Argument] = [], directives: [Document.Directive] = [], _ selections: [Document.Selection] = []) -> Document.Selection {
        .field(.init(alias: alias, name: name, arguments: arguments, directives: directives, selections: selections))
    }

    @Test("operations, variables with types and defaults, aliases, arguments of every kind, directives, fragments")
    func fullDocument() throws {
        let text = """
            \u{FEFF}# a comment, then the operation
            query Hero($id: ID!, $first: Int = 10, $tags: [String!]! = ["a", "b"], $withFriends: Boolean = false) @cached(ttl: 60) {
              luke: hero(id: $id, episode: JEDI, filter: {name: "Luke", height: 1.72e0, alive: true, spouse: null}) {
                ...HeroFields
                friends(first: $first) @include(if: $withFriends) { name, }
                ... on Droid { primaryFunction }
                ... @skip(if: true) { id }
              }
            }

            fragment HeroFields on Character { id name }
            """
        let document = try GraphQLDocumentParser.parse(text)
        #expect(document.operations.count == 1)
        let operation = try #require(document.operations.first)
        #expect(operation.kind == .query)
        #expect(operation.name == "Hero")
        #expect(operation.variables == [
            .init(name: "id", type: "ID!", defaultValue: nil),
            .init(name: "first", type: "Int", defaultValue: .int("10")),
            .init(name: "tags", type: "[String!]!", defaultValue: .list([.string("a"), .string("b")])),
            .init(name: "withFriends", type: "Boolean", defaultValue: .boolean(false)),
        ])
        #expect(operation.directives == [.init(name: "cached", arguments: [.init(name: "ttl", value: .int("60"))])])
        let filter: Document.Value = .object([
            .init(name: "name", value: .string("Luke")), .init(name: "height", value: .float("1.72e0")),
            .init(name: "alive", value: .boolean(true)), .init(name: "spouse", value: .null),
        ])
        #expect(operation.selections == [
            field("hero", alias: "luke", [
                .init(name: "id", value: .variable("id")), .init(name: "episode", value: .enumValue("JEDI")), .init(name: "filter", value: filter),
            ], [
                .fragmentSpread(name: "HeroFields", directives: []),
                field("friends", [.init(name: "first", value: .variable("first"))],
                      directives: [.init(name: "include", arguments: [.init(name: "if", value: .variable("withFriends"))])], [field("name")]),
                .inlineFragment(typeCondition: "Droid", directives: [], selections: [field("primaryFunction")]),
                .inlineFragment(typeCondition: nil, directives: [.init(name: "skip", arguments: [.init(name: "if", value: .boolean(true))])],
                                selections: [field("id")]),
            ]),
        ])
        #expect(document.fragments["HeroFields"] == .init(name: "HeroFields", typeCondition: "Character", directives: [], selections: [field("id"), field("name")]))
        #expect(document.operation(named: "Hero") == operation)
        #expect(document.operation(named: "") == operation)
        #expect(document.operation(named: "Other") == nil)
    }

    @Test("the query shorthand, mutations and subscriptions, several named operations")
    func operationKinds() throws {
        #expect(try GraphQLDocumentParser.parse("{ me { id } }").operations.first?.kind == .query)
        let document = try GraphQLDocumentParser.parse("mutation A { a } subscription B { b } query C { c }")
        #expect(document.operations.map(\.kind) == [.mutation, .subscription, .query])
        #expect(document.operation(named: "B")?.kind == .subscription)
        #expect(document.operation(named: "") == nil)
    }

    @Test("strings: escapes, a surrogate pair, UTF-8 as is, block strings without their indentation")
    func strings() throws {
        let text = #"""
            { a(s: "q\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00 ü\u{1F600}", b: """
                first
                  second \""" quoted
                """) }
            """#
        let document = try GraphQLDocumentParser.parse(text)
        guard case .field(let field) = document.operations.first?.selections.first else { Issue.record("no field"); return }
        #expect(field.arguments.first?.value == .string("q\"\\/\u{8}\u{C}\n\r\té😀 ü😀"))
        #expect(field.arguments.last?.value == .string("first\n  second \"\"\" quoted"))
    }

    @Test("numbers: integers, fractions and exponents, negative")
    func numbers() throws {
        let document = try GraphQLDocumentParser.parse("{ a(x: [0, -12, 3.5, -0.25e-3, 6E+2]) }")
        guard case .field(let field) = document.operations.first?.selections.first else { Issue.record("no field"); return }
        #expect(field.arguments.first?.value == .list([.int("0"), .int("-12"), .float("3.5"), .float("-0.25e-3"), .float("6E+2")]))
    }

    @Test("syntax errors name their line and column and what was expected", arguments: [
        ("query {\n  hero {\n    name\n", 4, 1, "expected a field, a fragment spread (...) or \"}\", found the end of the document"),
        ("{ a }\n{ b ; }", 2, 5, "unexpected character \";\""),
        ("{ a(x: 01) }", 1, 8, "a number does not start with 0"),
        ("{ a(x: 1.e) }", 1, 8, "a fraction needs a digit after \".\""),
        ("{ a(x: 12abc) }", 1, 8, "unexpected \"a\" after a number"),
        ("{ a(x: \"open\n\") }", 1, 8, "a string ends at the end of its line (use a block string for several)"),
        ("{ a(x: \"\\q\") }", 1, 8, "unknown escape \\\"q\" in a string"),
        ("{ a(x: \"\\u12\") }", 1, 8, "\\u needs four hex digits"),
        ("{ a(x: \"\\u+041\") }", 1, 8, "\\u needs four hex digits"),
        ("{ a(x: \"\\u{110000}\") }", 1, 8, "\\u escape of a surrogate alone or past U+10FFFF"),
        ("{ a(x: \"\\u{12\") }", 1, 8, "\\u{…} needs hex digits and a closing brace"),
        ("{ a(x: \"no end) }", 1, 8, "a string is not closed"),
        ("{ a(x: \"\"\"no end) }", 1, 8, "a block string is not closed"),
        ("{ }", 1, 3, "a selection set cannot be empty"),
        ("{ a(x: 1, x: 2) }", 1, 11, "the argument x is given twice"),
        ("query A { a } query A { b }", 1, 15, "the operation A is defined twice"),
        ("query A { a } { b }", 1, 20, "an anonymous operation must be the document's only operation"),
        ("query { ...Missing }", 1, 12, "the fragment Missing is spread but not defined"),
        ("type Query { a: Int }", 1, 1, "type defines a schema, which an executable document cannot hold"),
        ("fragment F on T { a }", 1, 22, "the document has no operation"),
        ("query ($a: Int = $b) { a }", 1, 18, "a constant value cannot be a variable"),
        ("query ($a: Int, $a: Int) { a }", 1, 19, "the variable $a is defined twice"),
        ("{ a: }", 1, 6, "expected the aliased field's name, found \"}\""),
        ("{ ... on { a } }", 1, 10, "expected the inline fragment's type, found \"{\""),
        ("{ a(x: [1, 2) }", 1, 13, "expected a value, found \")\""),
        ("{ a .. }", 1, 5, "expected \"...\""),
        ("{\n  a(s: \"ééé\") ; }", 2, 15, "unexpected character \";\""),
        ("{\n  café }", 2, 6, "unexpected character \"é\""),
    ])
    func syntaxErrors(text: String, line: Int, column: Int, message: String) {
        #expect(throws: GraphQLSyntaxError(message: message, line: line, column: column)) {
            try GraphQLDocumentParser.parse(text)
        }
    }

    @Test("a hostile nesting is an error, not a stack overflow")
    func deepNesting() {
        let deep = "{ " + String(repeating: "a { ", count: 100_000) + String(repeating: "} ", count: 100_001)
        #expect(throws: GraphQLSyntaxError.self) { try GraphQLDocumentParser.parse(deep) }
        let list = "{ a(x: " + String(repeating: "[", count: 100_000) + ") }"
        #expect(throws: GraphQLSyntaxError.self) { try GraphQLDocumentParser.parse(list) }
        let type = "query ($a: " + String(repeating: "[", count: 100_000) + "Int) { a }"
        #expect(throws: GraphQLSyntaxError.self) { try GraphQLDocumentParser.parse(type) }
        let chain = "{ ...F0 } " + (0..<5_000).map { "fragment F\($0) on T { ...F\($0 + 1) }" }.joined(separator: " ") + " fragment F5000 on T { a }"
        #expect(throws: GraphQLSyntaxError(message: "fragments spread each other deeper than 200 levels", line: 1, column: 1)) {
            try GraphQLDocumentParser.parse(chain)
        }
        let nested = "{ " + String(repeating: "a { ", count: 150) + "b" + String(repeating: " }", count: 151)
        #expect(throws: Never.self) { try GraphQLDocumentParser.parse(nested) }
    }

    @Test("a fragment that spreads itself, directly or through another, is refused")
    func fragmentCycles() {
        #expect(throws: GraphQLSyntaxError.self) {
            try GraphQLDocumentParser.parse("{ ...A } fragment A on T { ...A }")
        }
        #expect(throws: GraphQLSyntaxError(message: "the fragment A spreads itself", line: 1, column: 1)) {
            try GraphQLDocumentParser.parse("{ ...A } fragment A on T { b { ...B } } fragment B on T { ... on T { ...A } }")
        }
        #expect(throws: Never.self) {
            try GraphQLDocumentParser.parse("{ ...A ...B } fragment A on T { ...B } fragment B on T { c }")
        }
    }

    @Test("every operation of the suite's tests parses", arguments: [
        HeroQuery.document, PartialHeroQuery.document, SlowHeroQuery.document, SecretQuery.document, AddReview.document,
    ])
    func suiteDocuments(document: String) {
        #expect(throws: Never.self) { try GraphQLDocumentParser.parse(document) }
    }

    @Test("a client refuses an operation whose document does not parse, or is of another kind, before sending anything")
    func clientChecksDocuments() async throws {
        let sent = Locked(0)
        let transport = InMemoryTransport { _ throws(NetworkError) in
            sent.withLock { $0 += 1 }
            return HTTPResponse(status: 200, body: Data(#"{"data":{}}"#.utf8))
        }
        let api = client(URL(string: "https://api.example.com")!, transport: transport)
        do throws(NetworkError) {
            _ = try await api.graphQL.fetch(BrokenQuery())
            Issue.record("a broken document was sent")
        } catch {
            guard case .invalidRequest(let reason) = error else { Issue.record("got \(error)"); return }
            #expect(reason == "the document of BrokenQuery does not parse: GraphQL syntax error at line 2, column 1: expected a field, a fragment spread (...) or \"}\", found the end of the document")
        }
        do throws(NetworkError) {
            _ = try await api.graphQL.perform(MislabelledMutation())
            Issue.record("a mislabelled document was sent")
        } catch {
            guard case .invalidRequest(let reason) = error else { Issue.record("got \(error)"); return }
            #expect(reason == "MislabelledMutation is a mutation, but its document's operation is a query")
        }
        #expect(sent.withLock { $0 } == 0)
        await api.shutdown()
    }
}

private struct BrokenQuery: GraphQLQuery {
    static let document = "query Broken { hero { name }\n"
    struct Data: Decodable, Sendable {}
}

private struct MislabelledMutation: GraphQLMutation {
    static let document = "query Mislabelled { hero { name } }"
    struct Data: Decodable, Sendable {}
}
