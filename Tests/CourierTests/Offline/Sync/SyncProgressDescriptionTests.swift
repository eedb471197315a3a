import Testing

@testable import Courier

@Suite struct SyncProgressDescriptionTests {
    @Test("the counts, the item being replayed, the end")
    func lines() {
        #expect(SyncProgress(total: 10, done: 3, failed: 1, currentItem: 7).description == "sync: 3 of 10 done, 1 failed, replaying item 7")
        #expect(SyncProgress(total: 10, done: 10, isFinished: true).description == "sync finished: 10 of 10 done")
    }
}
