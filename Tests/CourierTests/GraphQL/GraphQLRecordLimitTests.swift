import CourierTesting
import Foundation
import Testing

@testable import Courier

/// The size limit (``GraphQLNormalizedCacheConfiguration/maxRecords``) on hand-built records:
/// what no root and no watcher reaches goes first, then the least recently used.
@Suite struct GraphQLRecordLimitTests {
    private func record(_ fields: [String: GraphQLRecord.Value] = [:]) -> GraphQLRecord {
        GraphQLRecord(fields: fields.merging(["name": .scalar(.string("x"))]) { old, _ in old })
    }

    @Test("unreachable records go first, least recently used first; reachable ones stay")
    func unreachableFirst() {
        var store = GraphQLRecordStore()
        _ = store.write(["C": record()])
        _ = store.write(["D": record()])
        _ = store.write(["E": record()])
        _ = store.write([
            "QUERY_ROOT": record(["feed": .list([.reference("A"), .scalar(.null)]), "top": .reference("B")]),
            "A": record(), "B": record(["next": .list([.list([.reference("F")])])]), "F": record(),
        ])
        store.touch(["C"])   // read: C is now the most recent of the unreachable
        let collected = store.collect(limit: 5)
        #expect(collected.evicted == ["D", "E"])
        #expect(Set(store.base.keys) == ["QUERY_ROOT", "A", "B", "F", "C"])
        #expect(store.collect(limit: 5).evicted.isEmpty)
    }

    @Test("then the least recently used reachable records, never a root nor a watched one")
    func leastRecentlyUsedNext() {
        var store = GraphQLRecordStore()
        _ = store.write(["A": record(), "B": record(), "C": record()])
        _ = store.write(["QUERY_ROOT": record(["a": .reference("A"), "b": .reference("B"), "c": .reference("C")])])
        _ = store.write(["MUTATION_ROOT": record()])
        store.touch(["A"])
        store.watch(1, reading: [GraphQLRecord.FieldKey(record: "C", field: "name")])
        let collected = store.collect(limit: 2)
        // B is the least recently used; C is watched, A was read after B; the roots stay.
        #expect(collected.evicted == ["B", "A"])
        #expect(collected.watchers.isEmpty)
        #expect(Set(store.base.keys) == ["QUERY_ROOT", "MUTATION_ROOT", "C"])
    }

    @Test("a watcher keeps what it reads, even when no root reaches it")
    func watcherKeepsItsRecords() {
        var store = GraphQLRecordStore()
        _ = store.write(["W": record(["friend": .reference("V")]), "V": record(), "X": record(), "Y": record()])
        store.watch(7, reading: [GraphQLRecord.FieldKey(record: "W", field: "friend")])
        let collected = store.collect(limit: 2)
        #expect(Set(collected.evicted) == ["X", "Y"])
        #expect(Set(store.base.keys) == ["W", "V"])
    }

    @Test("through the client: a write past the limit collects, and the watchers of what went re-read")
    func limitThroughTheCache() async throws {
        let api = client(URL(string: "https://api.test")!, transport: InMemoryTransport(always: HTTPResponse(status: 500, headers: [:], body: Data()))) {
            $0.graphQL.normalizedCache = GraphQLNormalizedCacheConfiguration(maxRecords: 3)
        }
        func hero(_ id: String) -> [String: JSONValue] {
            ["hero": .object(["__typename": .string("Hero"), "id": .string(id), "name": .string("Hero \(id)")])]
        }
        try api.graphQL.write(hero("1"), for: HeroNameQuery(variables: .init(id: "1")))
        try api.graphQL.write(hero("2"), for: HeroNameQuery(variables: .init(id: "2")))
        #expect(try api.graphQL.read(HeroNameQuery(variables: .init(id: "2"))).hero?.name == "Hero 2")
        // QUERY_ROOT, Hero:1, Hero:2, Hero:3: one over. Every hero is reachable; Hero:1 is the
        // least recently used.
        try api.graphQL.write(hero("3"), for: HeroNameQuery(variables: .init(id: "3")))
        #expect(throws: NetworkError.self) { try api.graphQL.read(HeroNameQuery(variables: .init(id: "1"))) }
        #expect(try api.graphQL.read(HeroNameQuery(variables: .init(id: "2"))).hero?.name == "Hero 2")
        #expect(try api.graphQL.read(HeroNameQuery(variables: .init(id: "3"))).hero?.name == "Hero 3")
        await api.shutdown()
    }
}
