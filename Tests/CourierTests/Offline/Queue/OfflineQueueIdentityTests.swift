import CourierTesting
import Foundation
import Testing

@testable import Courier

private func write(_ n: Int, identity: String?, attemptTimeout: Duration? = nil, deadline: Duration? = nil) -> OfflineWrite {
    OfflineWrite(
        request: write(n), requiresAuth: true, sessionIdentity: identity, attemptTimeout: attemptTimeout, deadline: deadline)
}

@Suite struct OfflineQueueIdentityTests {
    @Test("a claim takes the due items in order, several at once; another user's wait for their user without holding back the rest, a backoff holds back what follows it")
    func claimsParkAndHoldBack() async throws {
        let clock = ManualClock()
        let queue = RunningQueue(path: ":memory:", clock: clock)
        let events = queue.events.subscribe()
        for (n, identity) in [(1, "alice"), (2, nil), (3, "bob"), (4, "alice")] {
            _ = try await queue.handle.enqueue(write(n, identity: identity))
        }
        #expect(try await queue.handle.claim(limit: 10, identity: "alice").map(\.id) == [1, 2, 4])
        #expect(try await queue.handle.items().map(\.state) == [.sending, .sending, .waitingForUser, .sending])
        #expect(queue.handle.waiting.value == 3)   // bob's does not count

        try queue.handle.delivered(1, status: 201)
        #expect(try await queue.handle.settle(2, .failed(.serverError(HTTPResponse(status: 503)))) == .retrying)
        #expect(try await queue.handle.settle([(4, .released)]) == [.queued])
        #expect(queue.handle.waiting.value == 2)

        // Under bob: 2 (anyone's) waits for its backoff and holds back bob's 3 behind it.
        #expect(try await queue.handle.claim(limit: 10, identity: "bob").isEmpty)
        clock.advance(by: .seconds(10))
        #expect(try await queue.handle.claim(limit: 10, identity: "bob").map(\.id) == [2, 3])   // alice's 4 waits now
        #expect(queue.handle.waiting.value == 2)
        // The limit: one at a time.
        try queue.handle.delivered(2, status: 201)
        try queue.handle.delivered(3, status: 201)
        #expect(try await queue.handle.claim(limit: 1, identity: "alice").map(\.id) == [4])
        #expect(queue.handle.waiting.value == 1)
        try queue.handle.delivered(4, status: 201)
        #expect(try await queue.handle.items().isEmpty)
        let seen = await collect(events) { $0.count == 10 }
        #expect(seen == [
            .enqueued(itemID: 1), .enqueued(itemID: 2), .enqueued(itemID: 3), .enqueued(itemID: 4), .waitingForUser(itemID: 3),
            .delivered(itemID: 1, status: 201), .retrying(itemID: 2, attempt: 1, error: "\(NetworkError.serverError(HTTPResponse(status: 503)))"),
            .waitingForUser(itemID: 4), .delivered(itemID: 2, status: 201), .delivered(itemID: 3, status: 201),
        ])
        await queue.stop()
    }

    @Test("the identity, timeouts and waiting state are stored; a file written before they existed gains their columns and its writes replay as before")
    func storedAndMigrated() async throws {
        let path = try temporaryDirectory().appendingPathComponent("offline.sqlite").path
        // The first version's table, with one write in it.
        do {
            let old = try SQLiteDatabase.open(path, schema: """
                CREATE TABLE items (
                    id INTEGER PRIMARY KEY AUTOINCREMENT, method TEXT NOT NULL, url TEXT NOT NULL, headers BLOB NOT NULL,
                    body BLOB, requires_auth INTEGER NOT NULL, idempotency_key TEXT NOT NULL, created_at REAL NOT NULL,
                    expires_at REAL NOT NULL, attempts INTEGER NOT NULL, last_error TEXT, state TEXT NOT NULL,
                    next_attempt_at REAL, server_status INTEGER, server_headers BLOB, server_body BLOB);
                """).database
            try old.run(
                """
                INSERT INTO items (method, url, headers, body, requires_auth, idempotency_key, created_at, expires_at, attempts, state)
                VALUES ('POST', 'https://api.example.com/notes', X'', NULL, 1, 'old-key', 0, 4102444800, 0, 'queued')
                """, [])
        }
        let clock = ManualClock()
        let first = RunningQueue(path: path, clock: clock)
        var items = try await first.handle.items()
        #expect(items.map(\.idempotencyKey) == ["old-key"])
        #expect(items.first?.sessionIdentity == nil && items.first?.attemptTimeout == nil && items.first?.deadline == nil)
        #expect(items.first?.orderingKey == OfflineItem.defaultOrderingKey)
        _ = try await first.handle.enqueue(write(2, identity: "alice", attemptTimeout: .milliseconds(1500), deadline: .seconds(9)))
        _ = try await first.handle.enqueue(write(3, identity: "alice"))
        #expect(try await first.handle.claim(limit: 10, identity: nil).map(\.id) == [1])   // signed out: alice's wait
        await first.stop()

        let second = RunningQueue(path: path, clock: clock)
        items = try await second.handle.items()
        #expect(items.map(\.state) == [.queued, .waitingForUser, .waitingForUser])   // a claim is not written
        #expect(items.map(\.sessionIdentity) == [nil, "alice", "alice"])
        #expect(items.map(\.attemptTimeout) == [nil, .milliseconds(1500), nil])
        #expect(items.map(\.deadline) == [nil, .seconds(9), nil])
        #expect(second.handle.waiting.value == 1)
        #expect(try await second.handle.claim(limit: 10, identity: "alice").map(\.id) == [1, 2, 3])
        #expect(second.handle.waiting.value == 3)
        await second.stop()
    }

    @Test("deliveries leave the queue at once and are deleted together; a reopened queue does not have them")
    func deliveriesDeletedInBatches() async throws {
        let path = try temporaryDirectory().appendingPathComponent("offline.sqlite").path
        let clock = ManualClock()
        let first = RunningQueue(path: path, clock: clock)
        for n in 0..<100 { _ = try await first.handle.enqueue(write(n), requiresAuth: true) }
        let claimed = try await first.handle.claim(limit: 64, identity: nil)
        #expect(claimed.map(\.id) == Array(1...64))
        for item in claimed { try first.handle.delivered(item.id, status: 201) }
        #expect(try await first.handle.claim(limit: 64, identity: nil).map(\.id) == Array(65...100))
        #expect(try await first.handle.settle(Array(65...100).map { ($0, .released) }).allSatisfy { $0 == .queued })
        #expect(first.handle.waiting.value == 36)
        await first.stop()
        let second = RunningQueue(path: path, clock: clock)
        #expect(try await second.handle.items().map(\.id) == Array(65...100))
        await second.stop()
    }
}
