import Courier
import CourierTesting
import Foundation
import Testing

/// The reference storage keeps the shared storage's contract, check by check.
@Suite struct InMemorySharedOfflineStorageTests {
    @Test(arguments: SharedOfflineStorageContract.checks.map(\.name))
    func keepsTheContract(_ check: String) async throws {
        let run = try #require(SharedOfflineStorageContract.checks.first { $0.name == check }?.run)
        try await run(InMemorySharedOfflineStorage())
    }

    @Test func checksEverythingAtOnce() async throws {
        try await SharedOfflineStorageContract.check { InMemorySharedOfflineStorage() }
    }

    @Test func anInsertWakesTheOtherClients() async throws {
        // One instance is what several clients of a test share.
        let storage = InMemorySharedOfflineStorage()
        try await SharedOfflineStorageContract.checkWakeUps(inserting: storage, listening: storage)
    }

    @Test func aDownStorageFailsAndChangesNothing() async throws {
        let storage = InMemorySharedOfflineStorage()
        _ = try await storage.insert([SharedOfflineStorageContract.item("a", key: "a")])
        storage.isDown = true
        await #expect(throws: InMemorySharedOfflineStorage.Unavailable.self) {
            try await storage.insert([SharedOfflineStorageContract.item("b", key: "a")])
        }
        storage.isDown = false
        #expect(try await storage.items().map(\.idempotencyKey) == ["a"])
    }
}
