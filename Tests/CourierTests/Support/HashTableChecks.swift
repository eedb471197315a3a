import Testing

/// Checks that every one of `keys` (distinct) is found in a `Dictionary` at each size it grows
/// through, after moving to another table (another seed, so another order), and after half of
/// them are removed (removal shifts colliding neighbours back): what a key type with its own
/// hashing must keep true. `absent`, a key not among them, is not found.
func expectFoundInTables<Key: Hashable>(_ keys: [Key], absent: Key? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
    var table: [Key: Int] = [:]
    for (index, key) in keys.enumerated() {
        table[key] = index
        // Every earlier key is still found as the table grows and rehashes (checked at each growth).
        if index.nonzeroBitCount == 1 { #expect(keys[...index].allSatisfy { table[$0] != nil }, sourceLocation: sourceLocation) }
    }
    #expect(table.count == keys.count, sourceLocation: sourceLocation)
    if let absent { #expect(table[absent] == nil, sourceLocation: sourceLocation) }
    // Another table has another seed: the keys are inserted in the first table's order.
    var moved: [Key: Int] = [:]
    for (key, index) in table { moved[key] = index }
    #expect(keys.indices.allSatisfy { moved[keys[$0]] == $0 }, sourceLocation: sourceLocation)
    for key in keys.enumerated().filter({ $0.offset % 2 == 0 }).map(\.element) { moved[key] = nil }
    #expect(keys.indices.allSatisfy { moved[keys[$0]] == ($0 % 2 == 0 ? nil : $0) }, sourceLocation: sourceLocation)
}
