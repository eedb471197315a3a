import Testing

@testable import Courier

@Suite struct CacheEventDescriptionTests {
    @Test("cache events in a line")
    func lines() {
        #expect(CacheEvent.storageReset(movedTo: "/tmp/c.corrupt").description == "cache storage reset: the damaged file was moved to /tmp/c.corrupt")
        #expect(CacheEvent.storageFailed("disk full").description == "cache storage failed: disk full")
    }
}
