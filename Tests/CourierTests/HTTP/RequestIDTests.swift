import Testing

@testable import Courier

@Suite struct RequestIDTests {
    @Test("10,000 request numbers are all found in tables of every size they pass through, after moving and after removals")
    func manyNumbersInTables() {
        let ids = (1...10_000).map { RequestID(UInt64($0)) }
        expectFoundInTables(ids, absent: RequestID(10_001))
    }
}
