import Foundation
import Testing

@testable import Courier

func storedEntry(body: Int, lifetime: Int = 300, at date: Date = Date(timeIntervalSince1970: 0)) -> CacheEntry {
    CacheEntry(
        response: HTTPResponse(status: 200, body: Data(count: body)), storedAt: date, initialAge: 0, lifetime: lifetime,
        control: CacheControl(HTTPHeaders()), varying: [:])
}

@Suite struct CacheStorageTests {
    @Test("the least recently used entry goes first; a read makes an entry recent")
    func leastRecentlyUsedGoesFirst() {
        var storage = CacheStorage<String>(maxEntries: 3, maxBytes: 1 << 20)
        for key in ["a", "b", "c"] { storage.store(storedEntry(body: 10), for: key) }
        _ = storage.entry(for: "a")
        #expect(storage.store(storedEntry(body: 10), for: "d") == 1)
        #expect(storage.keysByRecency == ["d", "a", "c"])
        #expect(storage.entry(for: "b") == nil)
    }

    @Test("10,000 distinct URLs streaming through stay within the byte and entry limits")
    func boundedWhileTenThousandURLsStreamThrough() {
        var storage = CacheStorage<String>(maxEntries: 100, maxBytes: 64 * 1024)
        for index in 0..<10_000 {
            storage.store(storedEntry(body: 900 + index % 400), for: "GET https://api.example.com/items/\(index)")
            #expect(storage.bytes <= 64 * 1024)
            #expect(storage.count <= 100)
        }
        // The newest entries are the ones kept.
        #expect(storage.entry(for: "GET https://api.example.com/items/9999") != nil)
        #expect(storage.entry(for: "GET https://api.example.com/items/0") == nil)
        #expect(storage.bytes == storage.keysByRecency.reduce(0) { $0 + (storage.entrySize($1) ?? 0) })
    }

    @Test("an entry larger than the byte limit is not kept, and replacing an entry frees its bytes")
    func oversizedAndReplaced() {
        var storage = CacheStorage<String>(maxEntries: 10, maxBytes: 1000)
        storage.store(storedEntry(body: 5000), for: "big")
        #expect(storage.count == 0)
        #expect(storage.bytes == 0)
        storage.store(storedEntry(body: 100), for: "k")
        let first = storage.bytes
        storage.store(storedEntry(body: 200), for: "k")
        #expect(storage.count == 1)
        #expect(storage.bytes == first + 100)
        storage.remove("k")
        #expect(storage.bytes == 0)
    }
}

extension CacheStorage {
    /// The size charged for the entry under `key`, without touching its recency.
    func entrySize(_ key: Key) -> Int? {
        peek(key)?.size
    }
}
