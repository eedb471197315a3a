import Testing
@testable import Courier
import CourierTesting

@Suite struct ReplyTests {
    /// Three parties race to answer one handle (the component, a failure, a shutdown that
    /// drops it): exactly one wins, the asker is resumed once (a double resume would trap).
    @Test func exactlyOnceUnderRaces() async throws {
        var outcomes: [String: Int] = [:]
        for round in 0..<2_000 {
            let racers = Locked<[Task<Bool, Never>]>([])
            let outcome: String
            do {
                let value: Int = try await withCheckedThrowingContinuation { continuation in
                    let reply = Reply<Int>(continuation)
                    racers.withLock { racers in
                        racers.append(Task.detached { reply.succeed(round) })
                        racers.append(Task.detached { reply.fail(RuntimeError.componentRestarted("probe")) })
                        racers.append(Task.detached { reply.fail(RuntimeError.componentUnavailable("probe")) })
                    }
                }
                #expect(value == round)
                outcome = "value"
            } catch RuntimeError.componentRestarted {
                outcome = "restarted"
            } catch RuntimeError.componentUnavailable {
                outcome = "unavailable"
            }
            outcomes[outcome, default: 0] += 1
            var winners = 0
            for racer in racers.withLock({ $0 }) where await racer.value { winners += 1 }
            #expect(winners == 1, "round \(round)")
        }
        #expect(outcomes.values.reduce(0, +) == 2_000)
    }

    @Test func aDroppedHandleAnswersTheAsker() async {
        await #expect(throws: RuntimeError.replyDropped) {
            let _: Int = try await withCheckedThrowingContinuation { continuation in
                _ = Reply<Int>(continuation)
            }
        }
    }

    @Test func laterAnswersAreIgnored() async throws {
        let value: Int = try await withCheckedThrowingContinuation { continuation in
            let reply = Reply<Int>(continuation)
            #expect(reply.succeed(1))
            #expect(!reply.succeed(2))
            #expect(!reply.fail(NetworkError.cancelled))
            #expect(reply.isAnswered)
        }
        #expect(value == 1)
    }
}

@Suite struct MailboxTests {
    @Test func askOnAClosedMailboxIsUnavailable() async throws {
        let mailbox = Mailbox<Probe.Message>(name: "probe")
        mailbox.close()
        #expect(mailbox.isClosed)
        await #expect(throws: RuntimeError.self) { try await mailbox.ask { .echo(1, $0) } }
        #expect(throws: RuntimeError.self) { try mailbox.send(.crash(nil)) }
    }

    @Test func queuedAsksOfAClosedMailboxAreAnsweredWhenDiscarded() async throws {
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
    @Test func aCancelledAskersNextMessageArrivesAfterItsCancelMessage() async throws {
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

    @Test func aRestartedConsumerReceivesEverythingBuffered() async throws {
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
}

/// Polls `condition`, yielding between polls, for state that has no event to wait on.
/// Gives up after many rounds so a broken test fails instead of hanging.
func waitUntil(_ condition: () async -> Bool) async {
    for _ in 0..<1_000_000 {
        if await condition() { return }
        await Task.yield()
    }
    Issue.record("condition never became true")
}

