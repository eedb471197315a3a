import CourierTesting
import Foundation
import Testing

@testable import Courier

/// An offline queue instance running on its own mailbox over the database at `path`, as a
/// process would open it.
struct RunningQueue {
    let handle: OfflineQueue.Handle
    let events: EventBroadcaster<OfflineEvent>
    let task: Task<Void, any Error>

    init(path: String, clock: any TimeSource, limits: OfflineLimits = OfflineLimits(
        maxAttempts: 3, expiry: .seconds(3600), backoff: .constant(.seconds(10)), maxItems: 1000)) {
        let mailbox = Mailbox<OfflineQueue.Message>(name: "OfflineQueue")
        handle = OfflineQueue.Handle(mailbox: mailbox, waiting: LatestValue(0))
        events = EventBroadcaster()
        let environment = OfflineQueue.Environment(
            path: path, limits: limits, clock: clock, events: events, waiting: handle.waiting, loaded: handle.loaded)
        task = Task { try await OfflineQueue(environment).run(mailbox, incarnation: 1) }
    }

    /// Closes the mailbox and waits for the instance to end.
    func stop() async {
        handle.mailbox.close()
        _ = await task.result
    }
}

func write(_ n: Int, path: String = "notes") -> HTTPRequest {
    HTTPRequest(
        method: .post, url: URL(string: "https://api.example.com/\(path)")!,
        headers: ["Content-Type": "application/json", "Authorization": "Bearer t"], body: Data(#"{"n":\#(n)}"#.utf8))
}

@Suite struct OfflineQueueTests {
    @Test("a write queued after a send that got no answer is marked: its key may still be in progress at the server")
    func keyMayBeInProgress() async throws {
        let queue = RunningQueue(path: ":memory:", clock: ManualClock())
        _ = try await queue.handle.enqueue(write(1), requiresAuth: true)
        _ = try await queue.handle.enqueue(write(2), requiresAuth: true, keyMayBeInProgress: true)
        #expect(try await queue.handle.items().map(\.keyMayBeInProgress) == [false, true])
        await queue.stop()
    }

    @Test("a write's ordering key is stored with it; a write without one gets the default")
    func orderingKeyStored() async throws {
        let path = try temporaryDirectory().appendingPathComponent("queue.sqlite").path
        let first = RunningQueue(path: path, clock: ManualClock())
        _ = try await first.handle.enqueue(OfflineWrite(request: write(1), requiresAuth: true, orderingKey: "cart-7"))
        _ = try await first.handle.enqueue(write(2), requiresAuth: true)
        await first.stop()
        let second = RunningQueue(path: path, clock: ManualClock())
        #expect(try await second.handle.items().map(\.orderingKey) == ["cart-7", OfflineItem.defaultOrderingKey])
        await second.stop()
    }

    @Test("enqueued writes are on disk when enqueue returns: a new instance on the file finds them, in order")
    func durable() async throws {
        let path = try temporaryDirectory().appendingPathComponent("queue.sqlite").path
        let first = RunningQueue(path: path, clock: ManualClock())
        var ids: [Int64] = []
        for n in 0..<5 { ids.append(try await first.handle.enqueue(write(n), requiresAuth: true)) }
        #expect(ids == [1, 2, 3, 4, 5])
        #expect(first.handle.waiting.value == 5)
        await first.stop()

        let second = RunningQueue(path: path, clock: ManualClock())
        let items = try await second.handle.items()
        #expect(items.map(\.id) == ids)
        #expect(items.map { String(decoding: $0.request.body!, as: UTF8.self) } == (0..<5).map { #"{"n":\#($0)}"# })
        #expect(items.allSatisfy { !$0.request.headers.contains("Authorization") && $0.state == .queued })
        #expect(Set(items.map(\.idempotencyKey)).count == 5)
        #expect(second.handle.waiting.value == 5)
        // Ids are never reused, even after the last item left.
        try await second.handle.remove(5)
        await second.stop()
        let third = RunningQueue(path: path, clock: ManualClock())
        #expect(try await third.handle.enqueue(write(9), requiresAuth: true) == 6)
        await third.stop()
    }

    @Test("64 concurrent enqueuers: every write is stored once, each caller gets its own id")
    func concurrentEnqueues() async throws {
        let path = try temporaryDirectory().appendingPathComponent("queue.sqlite").path
        let queue = RunningQueue(path: path, clock: ManualClock())
        let ids = try await withThrowingTaskGroup(of: Int64.self) { group in
            for n in 0..<64 { group.addTask { try await queue.handle.enqueue(write(n), requiresAuth: true) } }
            return try await group.reduce(into: [Int64]()) { $0.append($1) }
        }
        #expect(Set(ids) == Set(1...64))
        await queue.stop()
        let reopened = RunningQueue(path: path, clock: ManualClock())
        #expect(try await reopened.handle.items().count == 64)
        await reopened.stop()
    }

    @Test("a full queue refuses with queueFull; an invalid write is refused and not stored")
    func limits() async throws {
        let queue = RunningQueue(path: ":memory:", clock: ManualClock(), limits: OfflineLimits(
            maxAttempts: 3, expiry: .seconds(60), backoff: .immediate, maxItems: 3))
        for n in 0..<3 { _ = try await queue.handle.enqueue(write(n), requiresAuth: true) }
        let full = await #expect(throws: NetworkError.self) { try await queue.handle.enqueue(write(3), requiresAuth: true) }
        guard case .queueFull(3)? = full else { Issue.record("got \(String(describing: full))"); return }
        try await queue.handle.clear()
        var bad = write(0)
        bad.headers.add(name: "X-Bad", value: "a\r\nInjected: yes")
        let invalid = await #expect(throws: NetworkError.self) { try await queue.handle.enqueue(bad, requiresAuth: true) }
        guard case .invalidRequest? = invalid else { Issue.record("got \(String(describing: invalid))"); return }
        #expect(try await queue.handle.items().isEmpty)
        await queue.stop()
    }

    @Test("claims go in order; a backing-off item holds back the rest; an item in flight at a crash is replayed with its key")
    func claimAndRecover() async throws {
        let path = try temporaryDirectory().appendingPathComponent("queue.sqlite").path
        let clock = ManualClock()
        let queue = RunningQueue(path: path, clock: clock)
        for n in 0..<3 { _ = try await queue.handle.enqueue(write(n), requiresAuth: true) }
        let first = try #require(try await queue.handle.claimNext())
        #expect(first.id == 1 && first.state == .sending)
        #expect(try await queue.handle.settle(1, .failed(.serverError(HTTPResponse(status: 503)))) == .retrying)
        #expect(try await queue.handle.claimNext() == nil)   // item 1 waits 10 s, and 2 and 3 behind it
        clock.advance(by: .seconds(10))
        #expect(try await queue.handle.claimNext()?.id == 1)
        #expect(try await queue.handle.settle(1, .delivered(status: 201)) == nil)
        let second = try #require(try await queue.handle.claimNext())
        #expect(second.id == 2)
        await queue.stop()   // "dies" with item 2 in flight

        let reopened = RunningQueue(path: path, clock: clock)
        let items = try await reopened.handle.items()
        #expect(items.map(\.id) == [2, 3])
        #expect(items[0].state == .queued && items[0].idempotencyKey == second.idempotencyKey)
        #expect(try await reopened.handle.claimNext()?.id == 2)
        await reopened.stop()
    }

    @Test("expiry on the test clock: expired items are kept, reported, and retryable")
    func expiry() async throws {
        let clock = ManualClock()
        let queue = RunningQueue(path: ":memory:", clock: clock)
        let events = queue.events.subscribe()
        let id = try await queue.handle.enqueue(write(1), requiresAuth: true)
        clock.advance(by: .seconds(3600))
        #expect(try await queue.handle.claimNext() == nil)
        #expect(try await queue.handle.items().map(\.state) == [.expired])
        #expect(queue.handle.waiting.value == 0)
        try await queue.handle.retry(id)
        #expect(try await queue.handle.claimNext()?.id == id)
        await queue.stop()
        queue.events.finish()
        let seen = await events.reduce(into: [OfflineEvent]()) { $0.append($1) }
        #expect(seen == [.enqueued(itemID: id), .expired(itemID: id)])
    }

    @Test("dead letters are listed, retryable and removable; a parked conflict is resolved through the queue")
    func deadLettersAndConflicts() async throws {
        let queue = RunningQueue(path: ":memory:", clock: ManualClock())
        let dead = try await queue.handle.enqueue(write(1), requiresAuth: true)
        let parked = try await queue.handle.enqueue(write(2), requiresAuth: true)
        _ = try await queue.handle.claimNext()
        #expect(try await queue.handle.settle(dead, .failed(.serverError(HTTPResponse(status: 400)))) == .dead)
        _ = try await queue.handle.claimNext()
        let conflict = HTTPResponse(status: 409, headers: ["ETag": "\"9\""], body: Data("theirs".utf8))
        #expect(try await queue.handle.settle(parked, .conflict(conflict, .manual)) == .conflict)
        #expect(try await queue.handle.claimNext() == nil)
        #expect(try await queue.handle.items().map(\.state) == [.dead, .conflict])
        try await queue.handle.resolve(parked, .merge(Data("ours+theirs".utf8)))
        let next = try #require(try await queue.handle.claimNext())
        #expect(next.id == parked && next.request.body == Data("ours+theirs".utf8))
        try await queue.handle.remove(dead)
        #expect(try await queue.handle.items().map(\.id) == [parked])
        await queue.stop()
    }

    @Test("a file that is not a database is moved aside with an event (nothing salvaged, the loss unknown), and a fresh queue works")
    func corruptFile() async throws {
        let directory = try temporaryDirectory()
        let path = directory.appendingPathComponent("queue.sqlite").path
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: path))
        let queue = RunningQueue(path: path, clock: ManualClock())
        let events = queue.events.subscribe()
        #expect(try await queue.handle.enqueue(write(1), requiresAuth: true) == 1)
        await queue.stop()
        queue.events.finish()
        let seen = await events.reduce(into: [OfflineEvent]()) { $0.append($1) }
        guard case .recovered(salvaged: 0, lost: nil, let movedTo) = seen.first else { Issue.record("\(seen)"); return }
        #expect(movedTo.hasPrefix(path + ".corrupt-"))
        #expect(FileManager.default.contents(atPath: movedTo) == Data(repeating: 0x5A, count: 8192))
    }

    @Test("a file another queue owns: calls fail with storageFailed, and within a second they do not try to open it again")
    func fileOwnedByAnother() async throws {
        let path = try temporaryDirectory().appendingPathComponent("queue.sqlite").path
        let owner = RunningQueue(path: path, clock: ManualClock())
        _ = try await owner.handle.enqueue(write(1), requiresAuth: true)
        let clock = ManualClock()
        let second = RunningQueue(path: path, clock: clock)
        let events = second.events.subscribe()
        for _ in 0..<2 {
            let error = await #expect(throws: NetworkError.self) { try await second.handle.enqueue(write(2), requiresAuth: true) }
            guard case .storageFailed? = error else { Issue.record("got \(String(describing: error))"); return }
        }
        await second.stop()
        second.events.finish()
        #expect(await events.reduce(0) { count, _ in count + 1 } == 1)   // one open attempt, one event
        #expect(try await owner.handle.items().count == 1)
        await owner.stop()
    }

    @Test("a database that cannot be opened fails each call with storageFailed, and nothing crashes")
    func unopenable() async throws {
        let queue = RunningQueue(path: "/nonexistent-directory/queue.sqlite", clock: ManualClock())
        let error = await #expect(throws: NetworkError.self) { try await queue.handle.enqueue(write(1), requiresAuth: true) }
        guard case .storageFailed? = error else { Issue.record("got \(String(describing: error))"); return }
        await queue.stop()
    }
}
