import CourierTesting
import Foundation
import Testing

@testable import Courier

@Suite struct MailboxTests {
    @Test("ask on a closed mailbox is unavailable")
    func askOnAClosedMailboxIsUnavailable() async throws {
        let mailbox = Mailbox<Probe.Message>(name: "probe")
        mailbox.close()
        #expect(mailbox.isClosed)
        await #expect(throws: RuntimeError.self) { try await mailbox.ask { .echo(1, $0) } }
        #expect(throws: RuntimeError.self) { try mailbox.send(.crash(nil)) }
    }

    @Test("queued asks of a closed mailbox are answered when discarded")
    func queuedAsksOfAClosedMailboxAreAnsweredWhenDiscarded() async throws {
        let mailbox = Mailbox<Probe.Message>(name: "probe")
        let enqueued = Locked(0)
        let pending = (0..<10).map { value in
            Task { try await mailbox.ask { reply in
                enqueued.withLock { $0 += 1 }
                return .echo(value, reply)
            } }
        }
        await waitUntil { enqueued.withLock { $0 } == 10 }
        mailbox.close()
        await mailbox.discardQueued()
        for task in pending {
            do {
                _ = try await task.value
                Issue.record("a discarded ask was answered")
            } catch RuntimeError.componentUnavailable(let name) {
                #expect(name == "probe")
            }
        }
    }

    /// A cancelled asker was woken before its cancel message was queued, so its next message
    /// could overtake the cancel.
    @Test("a cancelled askers next message arrives after its cancel message")
    func aCancelledAskersNextMessageArrivesAfterItsCancelMessage() async throws {
        let log = ProbeLog()
        let mailbox = Mailbox<Probe.Message>(name: "probe")
        let rounds = 300
        for round in 0..<rounds {
            let enqueued = Latch()
            let asker = Task {
                do {
                    _ = try await mailbox.ask({ reply in
                        enqueued.open()
                        return .echo(round, reply)
                    }, onCancel: .note("cancel \(round)"), cancelledError: NetworkError.cancelled)
                    Issue.record("a cancelled ask was answered")
                } catch {
                    // Woken by the canceller's thread: races the cancel message unless it
                    // was queued first.
                    try mailbox.send(.note("next \(round)"))
                }
            }
            await enqueued.wait()
            asker.cancel()
            try await asker.value
        }
        mailbox.close()
        try await Probe(name: "p", log: log).run(mailbox, incarnation: 1)
        let notes = log.all.filter { $0.contains("cancel") || $0.contains("next") }
        #expect(notes == (0..<rounds).flatMap { ["p:cancel \($0)", "p:next \($0)"] })
    }

    @Test("a restarted consumer receives everything buffered")
    func aRestartedConsumerReceivesEverythingBuffered() async throws {
        let log = ProbeLog()
        let mailbox = Mailbox<Probe.Message>(name: "probe")
        try mailbox.send(.crash(nil))
        let answers = (0..<100).map { value in Task { try await mailbox.ask { .echo(value, $0) } } }
        let first = Probe(name: "p", log: log)
        await #expect(throws: InjectedFailure.self) { try await first.run(mailbox, incarnation: 1) }
        let second = Probe(name: "p", log: log)
        let loop = Task { try await second.run(mailbox, incarnation: 2) }
        var total = 0
        for answer in answers { total += try await answer.value }
        #expect(total == (0..<100).reduce(0, +))
        mailbox.close()
        try await loop.value
    }

    @Test("messages a failing instance took in its batch go to the next instance, in order")
    func messagesAFailingInstanceTookInItsBatchGoToTheNextInstanceInOrder() async throws {
        let log = ProbeLog()
        let box = Mailbox<Probe.Message>(name: "p")
        // Queued before anyone consumes: the first instance takes all five in one batch.
        for note in ["a", "b"] { try box.send(.note(note)) }
        try box.send(.crash(nil))
        for note in ["c", "d"] { try box.send(.note(note)) }
        let first = Probe(name: "one", log: log)
        await #expect(throws: InjectedFailure.self) { try await first.run(box, incarnation: 1) }
        let second = Probe(name: "two", log: log)
        let running = Task { try await second.run(box, incarnation: 2) }
        #expect(try await box.ask { .echo(9, $0) } == 9)
        box.close()
        try await running.value
        #expect(log.all == ["init(one)", "one:a", "one:b", "one:crash", "init(two)", "two:c", "two:d", "two:9"])
    }

    @Test("a stop marker hands the rest of the batch to the next instance")
    func aStopMarkerHandsTheRestOfTheBatchToTheNextInstance() async throws {
        let log = ProbeLog()
        let box = Mailbox<Probe.Message>(name: "p")
        try box.send(.note("a"))
        box.requestStop(incarnation: 1)
        try box.send(.note("b"))
        try await Probe(name: "one", log: log).run(box, incarnation: 1)
        box.close()
        try await Probe(name: "two", log: log).run(box, incarnation: 2)
        #expect(log.all == ["init(one)", "one:a", "init(two)", "two:b"])
    }

    @Test("cancelling the consumer ends its wait but not the mailbox")
    func cancellingTheConsumerEndsItsWaitButNotTheMailbox() async throws {
        let log = ProbeLog()
        let box = Mailbox<Probe.Message>(name: "p")
        let waiting = Task { try await Probe(name: "one", log: log).run(box, incarnation: 1) }
        await waitUntil { log.all == ["init(one)"] }
        waiting.cancel()
        try await waiting.value
        #expect(!box.isClosed)
        try box.send(.note("after"))
        box.close()
        try await Probe(name: "two", log: log).run(box, incarnation: 2)
        #expect(log.all.suffix(2) == ["init(two)", "two:after"])
    }

    @Test("many senders' messages arrive in each sender's order")
    func manySendersMessagesArriveInEachSendersOrder() async throws {
        let box = Mailbox<Probe.Message>(name: "p")
        let log = ProbeLog()
        let consumer = Task { try await Probe(name: "c", log: log).run(box, incarnation: 1) }
        await withTaskGroup(of: Void.self) { group in
            for sender in 0..<8 {
                group.addTask { for index in 0..<500 { try? box.send(.note("\(sender)-\(index)")) } }
            }
        }
        box.close()
        try await consumer.value
        let notes = log.all.dropFirst()
        #expect(notes.count == 4_000)
        for sender in 0..<8 {
            let mine = notes.filter { $0.hasPrefix("c:\(sender)-") }
            #expect(mine == (0..<500).map { "c:\(sender)-\($0)" })
        }
    }

    @Test("the iterator yields a batch's messages in order, then the batch's end")
    func theIteratorYieldsABatchsMessagesInOrderThenTheBatchsEnd() async throws {
        let box = Mailbox<Probe.Message>(name: "p")
        for note in ["a", "b", "c"] { try box.send(.note(note)) }
        let iterator = box.makeAsyncIterator()
        var seen: [String] = []
        for _ in 0..<4 { seen.append(Self.describe(await iterator.next())) }
        try box.send(.note("d"))
        box.close()
        for _ in 0..<3 { seen.append(Self.describe(await iterator.next())) }
        #expect(seen == ["a", "b", "c", "end of batch", "d", "end of batch", "nil"])
    }

    @Test("an iterator released in the middle of a batch gives the rest back, in order")
    func anIteratorReleasedInTheMiddleOfABatchGivesTheRestBack() async throws {
        let box = Mailbox<Probe.Message>(name: "p")
        for note in ["a", "b", "c"] { try box.send(.note(note)) }
        var first: Mailbox<Probe.Message>.Iterator? = box.makeAsyncIterator()
        #expect(Self.describe(await first?.next()) == "a")
        first = nil
        try box.send(.note("d"))
        box.close()
        var seen: [String] = []
        for await envelope in box { seen.append(Self.describe(envelope)) }
        #expect(seen == ["b", "c", "d", "end of batch"])
    }

    private static func describe(_ envelope: Mailbox<Probe.Message>.Envelope?) -> String {
        switch envelope {
        case .message(.note(let text))?: text
        case .message?: "another message"
        case .stop(let incarnation)?: "stop \(incarnation)"
        case .endOfBatch?: "end of batch"
        case nil: "nil"
        }
    }
}
