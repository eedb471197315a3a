import Testing

@testable import Courier

@Suite struct RequestIDTests {
    @Test("10,000 request numbers are all found in tables of every size they pass through, after moving and after removals")
    func manyNumbersInTables() {
        let ids = (1...10_000).map { RequestID(UInt64($0)) }
        var table: [RequestID: Int] = [:]
        for (index, id) in ids.enumerated() {
            table[id] = index
            if index.nonzeroBitCount == 1 { #expect(ids[...index].allSatisfy { table[$0] != nil }) }
        }
        #expect(table.count == ids.count && table[RequestID(10_001)] == nil)
        var moved: [RequestID: Int] = [:]
        for (id, index) in table { moved[id] = index }
        #expect(ids.indices.allSatisfy { moved[ids[$0]] == $0 })
        for id in ids.enumerated().filter({ $0.offset % 2 == 0 }).map(\.element) { moved[id] = nil }
        #expect(ids.indices.allSatisfy { moved[ids[$0]] == ($0 % 2 == 0 ? nil : $0) })
    }
}
