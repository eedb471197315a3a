import Testing

@testable import Courier

@Suite struct OfflineEventDescriptionTests {
    @Test("offline queue events in a line, by item")
    func lines() {
        #expect(OfflineEvent.enqueued(itemID: 7).description == "item 7 enqueued")
        #expect(OfflineEvent.delivered(itemID: 7, status: 201).description == "item 7 delivered: 201")
        #expect(OfflineEvent.retrying(itemID: 7, attempt: 2, error: "timeout").description == "item 7 will be retried after attempt 2: timeout")
        #expect(OfflineEvent.deadLettered(itemID: 7, error: "400").description == "item 7 dead-lettered: 400")
        #expect(OfflineEvent.expired(itemID: 7).description == "item 7 expired")
        #expect(OfflineEvent.conflict(itemID: 7, status: 409).description == "item 7 conflicted: 409")
        #expect(OfflineEvent.waitingForUser(itemID: 7).description == "item 7 waits for the user it was queued under")
        #expect(OfflineEvent.conflictResolved(itemID: 7, resolution: "merge").description == "item 7 conflict resolved: merge")
        #expect(OfflineEvent.removed(itemID: 7).description == "item 7 removed")
        #expect(OfflineEvent.recovered(salvaged: 3, lost: nil, movedTo: "/q.bad").description
            == "queue storage recovered: 3 salvaged, an unknown number lost, the damaged file moved to /q.bad")
        #expect(OfflineEvent.recovered(salvaged: 3, lost: 1, movedTo: "/q.bad").description
            == "queue storage recovered: 3 salvaged, 1 lost, the damaged file moved to /q.bad")
        #expect(OfflineEvent.storageFailed("locked").description == "queue storage failed: locked")
    }
}
