import Foundation
import Testing

@testable import Courier

/// The record store: writes, optimistic layers and evictions reach only the watchers that read
/// what changed.
@Suite struct GraphQLRecordStoreTests {
    private func record(_ fields: [String: JSONValue]) -> GraphQLRecord {
        GraphQLRecord(fields: fields.mapValues { .scalar($0) })
    }

    private func key(_ record: String, _ field: String) -> GraphQLRecord.FieldKey { .init(record: record, field: field) }

    @Test("of 500 watchers, a write reaches the 10 that read the changed field")
    func writesReachOnlyReaders() {
        var store = GraphQLRecordStore()
        _ = store.write(Dictionary(uniqueKeysWithValues: (0..<50).map { ("User:\($0)", record(["name": .string("n\($0)"), "email": .string("e\($0)")])) }))
        for watcher in 0..<500 {
            // Watchers 0..<10 read User:7's name; the others read emails.
            let fields: Set = watcher < 10 ? [key("User:7", "name")] : [key("User:\(watcher % 50)", "email")]
            store.watch(watcher, reading: fields)
        }
        #expect(store.write(["User:7": record(["name": .string("renamed")])]) == Set(0..<10))
        #expect(store.write(["User:7": record(["name": .string("renamed")])]).isEmpty)   // unchanged
        store.unwatch(3)
        #expect(store.write(["User:7": record(["name": .string("again")])]) == Set(0..<10).subtracting([3]))
        #expect(store.records["User:7"]?.fields["email"] == .scalar(.string("e7")))
    }

    @Test("an optimistic layer shows at once, the server's answer replaces it, a failure rolls it back")
    func optimisticLayers() {
        var store = GraphQLRecordStore()
        _ = store.write(["User:1": record(["name": .string("Ada")])])
        store.watch(1, reading: [key("User:1", "name")])
        #expect(store.addLayer(10, ["User:1": record(["name": .string("Ada (saving)")])]) == [1])
        #expect(store.records["User:1"]?.fields["name"] == .scalar(.string("Ada (saving)")))
        // A server write under the layer does not change what the watcher sees.
        #expect(store.write(["User:1": record(["name": .string("Ada L.")])]).isEmpty)
        #expect(store.base["User:1"]?.fields["name"] == .scalar(.string("Ada L.")))
        // A second layer in flight, then the first removed: the second still shows.
        #expect(store.addLayer(11, ["User:1": record(["name": .string("Ada (second)")])]) == [1])
        #expect(store.removeLayer(10).isEmpty)
        #expect(store.records["User:1"]?.fields["name"] == .scalar(.string("Ada (second)")))
        // Rolled back: the watcher sees the server's value again.
        #expect(store.removeLayer(11) == [1])
        #expect(store.records["User:1"]?.fields["name"] == .scalar(.string("Ada L.")))
        #expect(store.removeLayer(11).isEmpty)
    }

    @Test("evicting a field or a record, and clearing, reach the watchers that read them")
    func evictions() {
        var store = GraphQLRecordStore()
        _ = store.write(["User:1": record(["name": .string("Ada"), "email": .string("a@x")]), "User:2": record(["name": .string("Bo")])])
        store.watch(1, reading: [key("User:1", "name")])
        store.watch(2, reading: [key("User:1", "email")])
        store.watch(3, reading: [key("User:2", "name")])
        #expect(store.evict(record: "User:1", field: "email") == [2])
        #expect(store.evict(record: "User:1", field: "email").isEmpty)
        #expect(store.evict(record: "User:1") == [1])
        #expect(store.records["User:1"] == nil)
        #expect(store.clear() == [1, 2, 3])
        #expect(store.records.isEmpty)
    }
}
