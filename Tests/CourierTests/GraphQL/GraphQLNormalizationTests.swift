import Foundation
import Testing

@testable import Courier

/// Normalizing responses into records and reading operations back from them, on hand-written
/// responses.
@Suite struct GraphQLNormalizationTests {
    private struct Operation {
        let document: GraphQLExecutableDocument
        let collector: GraphQLSelectionCollector

        init(_ text: String, variables: [String: JSONValue] = [:], possibleTypes: [String: Set<String>] = [:]) throws {
            document = try GraphQLDocumentParser.parse(text)
            collector = GraphQLSelectionCollector(fragments: document.fragments, variables: variables, possibleTypes: possibleTypes)
        }

        var selections: [GraphQLExecutableDocument.Selection] { document.operations[0].selections }
        var rootKey: String { GraphQLRecord.rootKey(of: document.operations[0].kind) }
        var rootType: String { GraphQLRecord.rootType(of: document.operations[0].kind) }

        func normalize(_ json: String) throws -> [String: GraphQLRecord] {
            let data = try JSONDecoder().decode([String: JSONValue].self, from: Data(json.utf8))
            return GraphQLNormalizer(collector: collector, cacheKey: GraphQLNormalizer.defaultCacheKey)
                .normalize(data, selections: selections, rootKey: rootKey, rootType: rootType)
        }

        func read(_ records: [String: GraphQLRecord]) throws(GraphQLRecordReader.Miss) -> GraphQLRecordReader.Answer {
            try GraphQLRecordReader(collector: collector).read(selections, rootKey: rootKey, rootType: rootType, from: records)
        }
    }

    private func json(_ text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    @Test("objects with an id are stored once under __typename:id, fields under name and sorted arguments, never aliases")
    func recordsByIdentity() throws {
        let query = try Operation(
            """
            query ($n: Int) { me: user(id: "42") { __typename id name
              recent: posts(first: $n, order: NEWEST) { __typename id title }
              address { city } } }
            """, variables: ["n": .number(2)])
        let records = try query.normalize(
            """
            {"me": {"__typename": "User", "id": "42", "name": "Ada",
              "recent": [{"__typename": "Post", "id": 7, "title": "Notes"}, null],
              "address": {"city": "London"}}}
            """)
        #expect(records["QUERY_ROOT"] == GraphQLRecord(fields: [#"user(id:"42")"#: .reference("User:42")]))
        #expect(records["User:42"] == GraphQLRecord(fields: [
            "__typename": .scalar(.string("User")), "id": .scalar(.string("42")), "name": .scalar(.string("Ada")),
            #"posts(first:2,order:"NEWEST")"#: .list([.reference("Post:7"), .scalar(.null)]),
            "address": .reference("User:42.address"),
        ]))
        #expect(records["Post:7"]?.fields["title"] == .scalar(.string("Notes")))
        #expect(records["User:42.address"] == GraphQLRecord(fields: ["city": .scalar(.string("London"))]))

        // Read back in the query's shape and aliases; the dependencies are the fields read.
        let answer = try query.read(records)
        #expect(answer.data == (try json(
            """
            {"me": {"__typename": "User", "id": "42", "name": "Ada",
              "recent": [{"__typename": "Post", "id": 7, "title": "Notes"}, null],
              "address": {"city": "London"}}}
            """)))
        #expect(answer.dependencies.contains(.init(record: "User:42", field: "name")))
        #expect(answer.dependencies.contains(.init(record: "User:42", field: #"posts(first:2,order:"NEWEST")"#)))
        #expect(answer.dependencies.contains(.init(record: "User:42.address", field: "city")))
    }

    @Test("two queries of one object share its record: a write through one is what the other reads")
    func sharedRecords() throws {
        let list = try Operation("{ users { __typename id name } }")
        let detail = try Operation(#"{ user(id: "42") { __typename id name email } }"#)
        var records = try detail.normalize(#"{"user": {"__typename": "User", "id": "42", "name": "Ada", "email": "ada@ex.org"}}"#)
        let changed = GraphQLRecord.merge(
            try list.normalize(#"{"users": [{"__typename": "User", "id": "42", "name": "Ada Lovelace"}]}"#), into: &records)
        #expect(changed == [.init(record: "QUERY_ROOT", field: "users"), .init(record: "User:42", field: "name")])
        #expect(try detail.read(records).data == (try json(
            #"{"user": {"__typename": "User", "id": "42", "name": "Ada Lovelace", "email": "ada@ex.org"}}"#)))
        // The same value again changes nothing.
        #expect(GraphQLRecord.merge(try list.normalize(#"{"users": [{"__typename": "User", "id": "42", "name": "Ada Lovelace"}]}"#), into: &records).isEmpty)
    }

    @Test("a field missing from the records is a miss naming its path, record and key")
    func misses() throws {
        let small = try Operation(#"{ user(id: "42") { __typename id name } }"#)
        let large = try Operation(#"{ user(id: "42") { __typename id name friends(first: 3) { __typename id } } }"#)
        let records = try small.normalize(#"{"user": {"__typename": "User", "id": "42", "name": "Ada"}}"#)
        do {
            _ = try large.read(records)
            Issue.record("read a field the records lack")
        } catch {
            #expect(error.path == ["user", "friends"])
            #expect(error.record == "User:42")
            #expect(error.field == "friends(first:3)")
            // A watcher of the query hears when the friends arrive.
            #expect(error.dependencies.contains(.init(record: "User:42", field: "friends(first:3)")))
            #expect(error.dependencies.contains(.init(record: "User:42", field: "name")))
        }
        do {
            _ = try small.read([:])
            Issue.record("read from no records")
        } catch {
            #expect(error.path == [] && error.record == "QUERY_ROOT")
            #expect(error.dependencies == [.init(record: "QUERY_ROOT", field: #"user(id:"42")"#)])
        }
    }

    @Test("fragments on the root type apply at the root")
    func rootFragments() throws {
        let query = try Operation(#"query { ...Home } fragment Home on Query { me { __typename id name } }"#)
        let records = try query.normalize(#"{"me": {"__typename": "User", "id": "1", "name": "Ada"}}"#)
        #expect(records["QUERY_ROOT"]?.fields["me"] == .reference("User:1"))
        #expect(try query.read(records).data == (try json(#"{"me": {"__typename": "User", "id": "1", "name": "Ada"}}"#)))
    }

    @Test("an object that comes back inside itself keeps the fields of both places")
    func objectInsideItself() throws {
        let query = try Operation(
            #"{ post(id: 1) { __typename id author { __typename id posts { __typename id title } } } }"#)
        let records = try query.normalize(
            #"{"post": {"__typename": "Post", "id": 1, "author": {"__typename": "User", "id": 2, "posts": [{"__typename": "Post", "id": 1, "title": "Notes"}]}}}"#)
        #expect(records["Post:1"]?.fields["title"] == .scalar(.string("Notes")))
        #expect(records["Post:1"]?.fields["author"] == .reference("User:2"))
    }

    @Test("a response with errors stores only the fields that arrived")
    func partialResponses() throws {
        let query = try Operation(#"{ user(id: "42") { __typename id name secret } }"#)
        var records = try query.normalize(#"{"user": {"__typename": "User", "id": "42", "name": "Ada", "secret": "s1"}}"#)
        // The second answer lacks `secret` (an error took it): the stored one stays.
        let changed = GraphQLRecord.merge(try query.normalize(#"{"user": {"__typename": "User", "id": "42", "name": "Ada L."}}"#), into: &records)
        #expect(changed == [.init(record: "User:42", field: "name")])
        #expect(records["User:42"]?.fields["secret"] == .scalar(.string("s1")))
    }

    @Test("fragments on interfaces and unions apply by possibleTypes; aliases of one field merge")
    func abstractTypes() throws {
        let text = """
            { search(text: "a") { __typename ... on Character { name } ... on Droid { primaryFunction } ...ShipFields } }
            fragment ShipFields on Starship { __typename id length }
            """
        let query = try Operation(text, possibleTypes: ["Character": ["Human", "Droid"]])
        let records = try query.normalize(
            """
            {"search": [
              {"__typename": "Human", "id": "1", "name": "Luke"},
              {"__typename": "Droid", "id": "2", "name": "R2-D2", "primaryFunction": "Astromech"},
              {"__typename": "Starship", "id": "3", "length": 34.37}]}
            """)
        #expect(records["Human:1"]?.fields["name"] == .scalar(.string("Luke")))
        #expect(records["Droid:2"]?.fields["primaryFunction"] == .scalar(.string("Astromech")))
        #expect(records["Starship:3"]?.fields["length"] == .scalar(.number(34.37)))
        #expect(records["Human:1"]?.fields["primaryFunction"] == nil)
        let answer = try query.read(records)
        #expect(answer.data == (try json(
            """
            {"search": [
              {"__typename": "Human", "name": "Luke"},
              {"__typename": "Droid", "name": "R2-D2", "primaryFunction": "Astromech"},
              {"__typename": "Starship", "id": "3", "length": 34.37}]}
            """)))
        // Without possibleTypes, the interface's fragment does not apply.
        let unaware = try Operation(text)
        #expect(unaware.collector.collect(unaware.selections, typename: nil).map(\.responseKey) == ["search"])
        let fields = unaware.collector.collect([.inlineFragment(typeCondition: "Character", directives: [], selections: [.field(.init(alias: nil, name: "name", arguments: [], directives: [], selections: []))])], typename: "Human")
        #expect(fields.isEmpty)
    }

    @Test("nested lists, @skip and @include with variables, objects without a key stored by path")
    func nestedListsAndDirectives() throws {
        let query = try Operation(
            "query ($full: Boolean!) { grid { cells { value } } meta @include(if: $full) { total } hidden @skip(if: true) }",
            variables: ["full": .bool(false)])
        let records = try query.normalize(#"{"grid": {"cells": [[{"value": 1}, {"value": 2}], [], null]}}"#)
        #expect(records["QUERY_ROOT"]?.fields["grid"] == .reference("QUERY_ROOT.grid"))
        #expect(records["QUERY_ROOT.grid"]?.fields["cells"] == .list([
            .list([.reference("QUERY_ROOT.grid.cells.0.0"), .reference("QUERY_ROOT.grid.cells.0.1")]), .list([]), .scalar(.null),
        ]))
        #expect(records["QUERY_ROOT.grid.cells.0.1"]?.fields["value"] == .scalar(.number(2)))
        #expect(try query.read(records).data == (try json(#"{"grid": {"cells": [[{"value": 1}, {"value": 2}], [], null]}}"#)))
    }

    @Test("storage keys: arguments sorted, variables resolved, objects canonical, absent variables left out")
    func storageKeys() throws {
        let document = try GraphQLDocumentParser.parse(#"{ a(z: 1, b: {y: [1.5, "x"], x: null}, c: $given, d: $absent, e: 2.0) }"#)
        guard case .field(let field) = document.operations[0].selections[0] else { Issue.record("no field"); return }
        let collector = GraphQLSelectionCollector(fragments: [:], variables: ["given": .string("v")], possibleTypes: [:])
        #expect(collector.storageKey(field) == #"a(b:{"x":null,"y":[1.5,"x"]},c:"v",e:2,z:1)"#)
        let big = try GraphQLDocumentParser.parse("{ a(id: 9007199254740993) b: a(id: 9007199254740992) }")
        let keys = big.operations[0].selections.compactMap { selection -> String? in
            if case .field(let field) = selection { return collector.storageKey(field) }
            return nil
        }
        #expect(keys == ["a(id:9007199254740993)", "a(id:9007199254740992)"])
    }
}
