import Testing
@testable import Courier
import CourierTesting

@Suite(.timeLimit(.minutes(5))) struct SupervisorTests {
    let clock = ManualClock()

    func supervisor(
        _ strategy: RestartStrategy = .oneForOne,
        restarts: RestartPolicy = .immediate
    ) -> Supervisor {
        Supervisor(name: "root", configuration: .init(
            strategy: strategy, restarts: restarts,
            clock: clock, random: SeededRandomSource(seed: 7)))
    }

    @Test("one for one restarts only the failed child and keeps its queue")
    func oneForOneRestartsOnlyTheFailedChildAndKeepsItsQueue() async throws {
        let log = ProbeLog()
        let boxes = ["a", "b", "c"].map { Mailbox<Probe.Message>(name: $0) }
        let supervisor = supervisor()
        let events = EventCursor(supervisor.events())
        await supervisor.start(boxes.map { .probe($0.name, mailbox: $0, log: log) })
        #expect(await events.until("started(c)") == ["started(a)", "started(b)", "started(c)"])

        // The crash and the echo are queued together: the echo waits in the mailbox while
        // the instance is replaced, and the new instance answers it.
        try boxes[1].send(.crash(nil))
        #expect(try await boxes[1].ask { .echo(7, $0) } == 7)
        #expect(await events.until("restarted(b, 1)") == ["failed(b)", "restarted(b, 1)"])
        #expect(try await boxes[0].ask { .echo(1, $0) } == 1)
        #expect(try await boxes[2].ask { .echo(3, $0) } == 3)

        let entries = log.all
        #expect(entries.filter { $0.hasPrefix("init") }.sorted() == ["init(a)", "init(b)", "init(b)", "init(c)"])
        let b = entries.filter { $0.contains("b") }
        #expect(b == ["init(b)", "b:crash", "init(b)", "b:7"])
        await supervisor.shutdown()
        #expect(await events.rest() == ["stopped(c)", "stopped(b)", "stopped(a)", "shutDown(root)"])
    }

    @Test("rest for one restarts the failed child and those after it")
    func restForOneRestartsTheFailedChildAndThoseAfterIt() async throws {
        let log = ProbeLog()
        let boxes = ["a", "b", "c"].map { Mailbox<Probe.Message>(name: $0) }
        let supervisor = supervisor(.restForOne)
        let events = EventCursor(supervisor.events())
        await supervisor.start(boxes.map { .probe($0.name, mailbox: $0, log: log) })
        await events.until("started(c)")
        try boxes[1].send(.crash(nil))
        #expect(await events.until("restarted(c, 1)") == ["failed(b)", "restarted(b, 1)", "restarted(c, 1)"])
        for (index, box) in boxes.enumerated() {
            #expect(try await box.ask { .echo(index, $0) } == index)
        }
        #expect(log.all.filter { $0.hasPrefix("init") }.sorted() == ["init(a)", "init(b)", "init(b)", "init(c)", "init(c)"])
        await supervisor.shutdown()
    }

    @Test("rest for one loses no message of the stopped siblings")
    func restForOneLosesNoMessageOfTheStoppedSiblings() async throws {
        let log = ProbeLog()
        let boxes = ["a", "b"].map { Mailbox<Probe.Message>(name: $0) }
        let supervisor = supervisor(.restForOne)
        await supervisor.start(boxes.map { .probe($0.name, mailbox: $0, log: log) })
        async let answers = withThrowingTaskGroup(of: Int.self) { group in
            for value in 0..<200 { group.addTask { try await boxes[1].ask { .echo(value, $0) } } }
            return try await group.reduce(0) { $0 + $1 }
        }
        try boxes[0].send(.crash(nil))
        #expect(try await answers == (0..<200).reduce(0, +))
        await supervisor.shutdown()
    }

    @Test("restart types of task children")
    func restartTypesOfTaskChildren() async throws {
        let runs = Locked(0)
        let supervisor = supervisor()
        let events = EventCursor(supervisor.events())
        await supervisor.start([
            ChildSpec(name: "transient-ok", restart: .transient) {},
            ChildSpec(name: "temporary-fails", restart: .temporary) { throw InjectedFailure(label: "t") },
            ChildSpec(name: "transient-fails-once", restart: .transient) {
                let run = runs.withLock { $0 += 1; return $0 }
                if run == 1 { throw InjectedFailure(label: "once") }
            },
        ])
        await events.untilAll(["stopped(transient-ok)", "stopped(temporary-fails)", "stopped(transient-fails-once)"])
        let all = events.seen
        #expect(all.contains("failed(transient-fails-once)"))
        #expect(all.contains("restarted(transient-fails-once, 1)"))
        #expect(all.filter { $0.hasPrefix("restarted") } == ["restarted(transient-fails-once, 1)"])
        await supervisor.shutdown()
        let rest = events.seen + (await events.rest())
        #expect(rest.contains("exited(transient-ok)") && rest.contains("stopped(transient-ok)"))
        #expect(rest.contains("failed(temporary-fails)") && rest.contains("stopped(temporary-fails)"))
        #expect(runs.withLock { $0 } == 2)
    }
}

extension SupervisorTests {
    @Test("exceeding the intensity gives up stops in reverse and answers unavailable")
    func exceedingTheIntensityGivesUpStopsInReverseAndAnswersUnavailable() async throws {
        let log = ProbeLog()
        let boxes = ["a", "b", "c"].map { Mailbox<Probe.Message>(name: $0) }
        let supervisor = Supervisor(name: "root", configuration: .init(restarts: .immediate, clock: clock))
        let events = EventCursor(supervisor.events())
        await supervisor.start(boxes.map { .probe($0.name, mailbox: $0, log: log) })
        for restart in 1...3 {
            try boxes[1].send(.crash(nil))
            await events.until("restarted(b, \(restart))")
        }
        // The fourth failure within 5 s (the clock has not moved) exceeds 3 restarts in 5 s.
        try boxes[1].send(.crash(nil))
        #expect(await events.until("stopped(a)") == ["failed(b)", "gaveUp(root, b)", "stopped(c)", "stopped(b)", "stopped(a)"])
        #expect(await supervisor.status == .gaveUp)
        for box in boxes {
            await #expect(throws: RuntimeError.self) { try await box.ask { .echo(1, $0) } }
            do {
                _ = try await box.ask { .echo(1, $0) }
            } catch RuntimeError.componentUnavailable(let name) {
                #expect(name == box.name)
            }
            #expect(throws: RuntimeError.self) { try box.send(.crash(nil)) }
        }
        await supervisor.shutdown()
        #expect(await events.rest() == ["shutDown(root)"])
    }

    @Test("restart waits for the jittered backoff on the injected clock")
    func restartWaitsForTheJitteredBackoffOnTheInjectedClock() async throws {
        let log = ProbeLog()
        let box = Mailbox<Probe.Message>(name: "a")
        let backoff = RestartPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(8))
        let supervisor = Supervisor(name: "root", configuration: .init(restarts: backoff, clock: clock, random: SeededRandomSource(seed: 1)))
        let events = EventCursor(supervisor.events())
        await supervisor.start([.probe("a", mailbox: box, log: log)])
        try box.send(.crash(nil))
        await events.until("failed(a)")
        await clock.waitForSleepers(1)
        let delay = try #require(clock.pendingDelays.first)
        #expect(delay >= .milliseconds(500) && delay < .seconds(1))
        #expect(log.all.filter { $0.hasPrefix("init") }.count == 1)
        clock.advance(by: delay)
        await events.until("restarted(a, 1)")
        #expect(try await box.ask { .echo(5, $0) } == 5)
        await supervisor.shutdown()
    }

    @Test("shutdown drains queued messages in reverse order")
    func shutdownDrainsQueuedMessagesInReverseOrder() async throws {
        let log = ProbeLog()
        let boxes = ["a", "b", "c"].map { Mailbox<Probe.Message>(name: $0) }
        let supervisor = Supervisor(name: "root", configuration: .init(clock: clock))
        let events = EventCursor(supervisor.events())
        await supervisor.start(boxes.map { .probe($0.name, mailbox: $0, log: log) })
        let answers = boxes.map { box in
            Task { try await withThrowingTaskGroup(of: Int.self) { group in
                for value in 0..<50 { group.addTask { try await box.ask { .echo(value, $0) } } }
                return try await group.reduce(0, +)
            } }
        }
        await supervisor.shutdown()
        #expect(await events.rest() == ["started(a)", "started(b)", "started(c)", "stopped(c)", "stopped(b)", "stopped(a)", "shutDown(root)"])
        for answer in answers {
            // Every ask either was handled before its mailbox closed, or is told the component is gone.
            do { #expect(try await answer.value == (0..<50).reduce(0, +)) } catch RuntimeError.componentUnavailable {}
        }
        #expect(await supervisor.status == .stopped)
    }

    @Test("shutdown cancels a child that misses its deadline")
    func shutdownCancelsAChildThatMissesItsDeadline() async throws {
        let log = ProbeLog()
        let boxes = ["a", "b"].map { Mailbox<Probe.Message>(name: $0) }
        let supervisor = Supervisor(name: "root", configuration: .init(clock: clock))
        let events = EventCursor(supervisor.events())
        await supervisor.start(boxes.map { .probe($0.name, mailbox: $0, log: log, clock: clock, deadline: .seconds(2)) })
        let blocked = Task { try await boxes[1].ask { .block($0) } }
        await clock.waitForSleepers(1)              // b is blocked in its handler
        let queued = Task { try await boxes[1].ask { .echo(9, $0) } }
        let shutdown = Task { await supervisor.shutdown() }
        await clock.waitForSleepers(2)              // the shutdown deadline is running
        clock.advance(by: .seconds(2))
        await shutdown.value
        // b's handler was cancelled: it failed (during shutdown), and it is reported.
        #expect(await events.rest() == ["started(a)", "started(b)", "failed(b)", "stopped(b)", "stopped(a)", "shutDown(root)"])
        await #expect(throws: RuntimeError.self) { try await blocked.value }
        do {
            _ = try await queued.value
            Issue.record("the queued ask should not be answered")
        } catch RuntimeError.componentUnavailable(let name) {
            #expect(name == "b")
        }
    }

    @Test("ten thousand asks from sixteen senders with a failure every thousand")
    func tenThousandAsksFromSixteenSendersWithAFailureEveryThousand() async throws {
        let handled = Locked<[Int]>([])
        let box = Mailbox<Flaky.Message>(name: "flaky")
        let supervisor = Supervisor(name: "root", configuration: .init(
            restarts: RestartPolicy(maxRestarts: 100, period: .seconds(5), initialDelay: .zero), clock: clock))
        await supervisor.start([.component(mailbox: box) { Flaky(handled: handled) }])

        let outcomes = await withTaskGroup(of: [Int: Bool].self) { group in
            for sender in 0..<16 {
                group.addTask {
                    var outcomes: [Int: Bool] = [:]
                    for value in stride(from: sender, to: 10_000, by: 16) {
                        do {
                            let answer = try await box.ask { .work(value, $0) }
                            outcomes[value] = (answer == value)
                        } catch RuntimeError.componentRestarted {
                            outcomes[value] = false
                        } catch {
                            Issue.record("unexpected \(error)")
                        }
                    }
                    return outcomes
                }
            }
            return await group.reduce(into: [Int: Bool]()) { $0.merge($1) { a, _ in a } }
        }
        #expect(outcomes.count == 10_000)                  // no asker hung or was lost
        let failed = outcomes.filter { !$0.value }.keys.sorted()
        #expect(failed == Array(stride(from: 999, to: 10_000, by: 1000)))
        let handledValues = handled.withLock { $0 }
        #expect(handledValues.count == 9_990)               // handled exactly once each
        #expect(Set(handledValues).count == 9_990)
        #expect(Set(handledValues).isDisjoint(with: failed))
        await supervisor.shutdown()
    }
}

extension SupervisorTests {
    /// Asks race a failure and a shutdown: every asker is answered exactly once, with its
    /// value, `componentRestarted` or `componentUnavailable`; none hangs.
    @Test("asks racing a failure and a shutdown all get an answer")
    func asksRacingAFailureAndAShutdownAllGetAnAnswer() async throws {
        let handled = Locked<[Int]>([])
        let box = Mailbox<Flaky.Message>(name: "flaky")
        let supervisor = Supervisor(name: "root", configuration: .init(
            restarts: RestartPolicy(maxRestarts: 1_000, period: .seconds(5), initialDelay: .zero), clock: clock))
        await supervisor.start([.component(mailbox: box) { Flaky(handled: handled) }])
        let outcomes = await withTaskGroup(of: [String].self) { group in
            for sender in 0..<8 {
                group.addTask {
                    var outcomes: [String] = []
                    for value in stride(from: sender, to: 4_000, by: 8) {
                        do {
                            let answer = try await box.ask { .work(value, $0) }
                            outcomes.append(answer == value ? "value" : "wrong")
                        } catch RuntimeError.componentRestarted {
                            outcomes.append("restarted")
                        } catch RuntimeError.componentUnavailable {
                            outcomes.append("unavailable")
                        } catch {
                            outcomes.append("other")
                        }
                    }
                    return outcomes
                }
            }
            group.addTask {
                await Task.yield()
                await supervisor.shutdown()
                return []
            }
            return await group.reduce(into: [String]()) { $0 += $1 }
        }
        #expect(outcomes.count == 4_000)
        #expect(!outcomes.contains("wrong") && !outcomes.contains("other"))
        #expect(handled.withLock { $0.count } == outcomes.filter { $0 == "value" }.count)
    }
}

extension SupervisorTests {
    @Test("a child left down for good answers its askers unavailable")
    func aChildLeftDownForGoodAnswersItsAskersUnavailable() async throws {
        let log = ProbeLog()
        let box = Mailbox<Probe.Message>(name: "t")
        let supervisor = Supervisor(name: "root", configuration: .init(restarts: .immediate, clock: clock))
        let events = EventCursor(supervisor.events())
        await supervisor.start([.probe("t", mailbox: box, log: log, restart: .temporary)])
        try box.send(.crash(nil))
        #expect(await events.until("stopped(t)") == ["started(t)", "failed(t)", "stopped(t)"])
        let error = await #expect(throws: RuntimeError.self) { try await box.ask { .echo(1, $0) } }
        guard case .componentUnavailable("t")? = error else { Issue.record("got \(String(describing: error))"); return }
        await supervisor.shutdown()
    }

    @Test("a sibling that misses its stop deadline makes the supervisor give up")
    func aSiblingThatMissesItsStopDeadlineMakesTheSupervisorGiveUp() async throws {
        let log = ProbeLog()
        let boxes = ["a", "b"].map { Mailbox<Probe.Message>(name: $0) }
        let supervisor = Supervisor(name: "root", configuration: .init(strategy: .restForOne, restarts: .immediate, clock: clock))
        let events = EventCursor(supervisor.events())
        await supervisor.start(boxes.map { .probe($0.name, mailbox: $0, log: log, clock: clock, deadline: .seconds(1)) })
        let blocked = Task { try await boxes[1].ask { .block($0) } }
        await clock.waitForSleepers(1)                      // b is busy for an hour
        try boxes[0].send(.crash(nil))
        await clock.waitForSleepers(2)                      // the restart waits for b to stop
        clock.advance(by: .seconds(1))
        await events.until("gaveUp(root, b)")
        await clock.waitForSleepers(2)                      // shutting down: b's deadline again
        clock.advance(by: .seconds(1))
        await events.until("stopped(a)")
        #expect(events.seen == ["started(a)", "started(b)", "failed(a)", "gaveUp(root, b)", "failed(b)", "stopped(b)", "stopped(a)"])
        await #expect(throws: RuntimeError.self) { try await blocked.value }
        #expect(await supervisor.status == .gaveUp)
        await supervisor.shutdown()
    }
}

/// A component that fails on every 1000th value (999, 1999, ...).
actor Flaky: Component {
    enum Message: Sendable { case work(Int, Reply<Int>) }
    let handled: Locked<[Int]>
    init(handled: Locked<[Int]>) { self.handled = handled }

    func handle(_ message: consuming Message) throws {
        switch message {
        case .work(let value, let reply):
            if value % 1000 == 999 { throw InjectedFailure(label: "\(value)") }
            handled.withLock { $0.append(value) }
            reply.succeed(value)
        }
    }
}
