import Testing

@testable import Courier

@Suite struct SplitMixTests {
    @Test("consecutive numbers mix to distinct hashes, and another seed orders them differently")
    func distinctAndSeeded() {
        let numbers = (0..<100_000).map { UInt64($0) }
        let hashes = numbers.map { splitMix($0, seed: 42) }
        #expect(Set(hashes).count == numbers.count)
        // Low bits pick a table's bucket: consecutive numbers spread over most of them (a random
        // hash fills about 63 % of 4096 buckets with 4096 keys).
        let buckets = Set(hashes.prefix(4096).map { $0 & 4095 })
        #expect(buckets.count > 2500)
        let reseeded = numbers.prefix(1000).map { splitMix($0, seed: 43) }
        #expect(zip(hashes.prefix(1000), reseeded).filter { $0 == $1 }.isEmpty)
    }
}
