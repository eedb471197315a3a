import Testing

@testable import Courier

@Suite struct RequestQueueTests {
    /// One reply shared by every request of a test: the queue never touches it.
    private let reply: Reply<Void>

    init() async {
        reply = await Reply<Void>.detached()
    }

    private func pending(_ id: UInt64, deadline: Duration = .seconds(1)) -> WaitingRequest {
        WaitingRequest(id: RequestID(id), deadline: deadline, call: RunningCall(), reply: reply)
    }

    @Test("the requests past their deadline leave; the earliest deadline left is told")
    func removesExpired() {
        var queue = RequestQueue()
        for (id, seconds) in [(1, 5), (2, 3), (3, 9), (4, 3)] as [(UInt64, Int64)] { queue.append(pending(id, deadline: .seconds(seconds))) }
        let (expired, next) = queue.removeExpired(at: .seconds(3))
        #expect(expired.map(\.id.rawValue) == [2, 4])
        #expect(next == .seconds(5))
        #expect(queue.count == 2)
        #expect([queue.popFirst()?.id.rawValue, queue.popFirst()?.id.rawValue] == [1, 3])
        #expect(queue.removeExpired(at: .seconds(10)).next == nil)
    }

    @Test("pops in the order appended")
    func popsInTheOrderAppended() {
        var queue = RequestQueue()
        for id: UInt64 in 1...5 { queue.append(pending(id)) }
        #expect(queue.count == 5)
        let popped = (0..<5).compactMap { _ in queue.popFirst()?.id.rawValue }
        #expect(popped == [1, 2, 3, 4, 5])
        #expect(queue.popFirst() == nil)
        #expect(queue.count == 0)
    }

    @Test("the newest is popped from the back, past holes, and the front is undisturbed")
    func popsTheNewestFromTheBack() {
        var queue = RequestQueue()
        for id: UInt64 in 1...5 { queue.append(pending(id)) }
        #expect(queue.popFirst()?.id.rawValue == 1)
        queue.remove(RequestID(5))
        #expect(queue.popLast()?.id.rawValue == 4)   // the hole 5 left is dropped with it
        #expect(queue.count == 2)
        #expect(queue.storageCount == 3)             // 1's popped slot, 2, 3
        #expect(queue.popLast()?.id.rawValue == 3)
        #expect(queue.popFirst()?.id.rawValue == 2)
        #expect(queue.popLast() == nil && queue.popFirst() == nil)
        #expect(queue.count == 0)
    }

    @Test("a removed request leaves a hole that pops skip")
    func aRemovedRequestLeavesAHoleThatPopsSkip() {
        var queue = RequestQueue()
        for id: UInt64 in 1...4 { queue.append(pending(id)) }
        queue.remove(RequestID(2))
        queue.remove(RequestID(2))        // twice: the second does nothing
        queue.remove(RequestID(99))       // unknown: nothing
        #expect(queue.count == 3)
        #expect(queue.popFirst()?.id.rawValue == 1)
        #expect(queue.popFirst()?.id.rawValue == 3)
        #expect(queue.count == 1)
        queue.remove(RequestID(4))
        #expect(queue.count == 0)
        #expect(queue.popFirst() == nil)
    }

    @Test("popped slots are compacted so storage stays bounded")
    func poppedSlotsAreCompactedSoStorageStaysBounded() {
        var queue = RequestQueue()
        var next: UInt64 = 0
        // A steady state of about 10 waiting requests, through 100,000 appends and pops.
        for _ in 0..<10 { next += 1; queue.append(pending(next)) }
        for _ in 0..<100_000 {
            next += 1
            queue.append(pending(next))
            _ = queue.popFirst()
        }
        #expect(queue.count == 10)
        #expect(queue.storageCount <= 2 * 64 + 10)
        #expect(queue.popFirst()?.id.rawValue == next - 9)
    }
}

extension Reply {
    /// A reply whose asker is a detached task that nobody awaits; it ends when the reply is
    /// answered or released. For value-level tests of queues and messages.
    static func detached() async -> Reply<Value> {
        await withCheckedContinuation { (made: CheckedContinuation<Reply<Value>, Never>) in
            Task.detached {
                _ = try? await withUnsafeThrowingContinuation { (asker: UnsafeContinuation<Value, any Error>) in
                    made.resume(returning: Reply(slot: .init(.task(asker))))
                }
            }
        }
    }
}
