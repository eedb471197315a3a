import Testing

@testable import Courier

@Suite struct CacheKeyTests {
    @Test("a key is its URL and identity: the same pair finds the entry, another URL or identity does not")
    func keyIsURLAndIdentity() {
        let key = CacheKey(url: "https://api.example.com/users/42", identity: "alice")
        var table: [CacheKey: Int] = [key: 1]
        #expect(table[CacheKey(url: "https://api.example.com/users/42", identity: "alice")] == 1)
        #expect(table[CacheKey(url: "https://api.example.com/users/42", identity: "bob")] == nil)
        #expect(table[CacheKey(url: "https://api.example.com/users/42", identity: "")] == nil)
        #expect(table[CacheKey(url: "https://api.example.com/users/43", identity: "alice")] == nil)
        table[CacheKey(url: "https://api.example.com/users/42", identity: "alice")] = 2
        #expect(table.count == 1 && table[key] == 2)
    }

    @Test("10,000 keys are all found in tables of every size they pass through, and after moving to another table")
    func manyKeysInTables() {
        let keys = (0..<10_000).map { CacheKey(url: "https://api.example.com/items?page=\($0)", identity: $0 % 2 == 0 ? "" : "alice") }
        #expect(Set(keys).count == keys.count)
        expectFoundInTables(keys)
    }
}
