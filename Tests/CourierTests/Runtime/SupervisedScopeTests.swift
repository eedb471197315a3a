import Testing
@testable import Courier
import CourierTesting

@Suite(.timeLimit(.minutes(5))) struct SupervisedScopeTests {
    let clock = ManualClock()

    func supervisor() -> Supervisor {
        Supervisor(name: "root", configuration: .init(
            restarts: .immediate, clock: clock, random: SeededRandomSource(seed: 7)))
    }

    @Test("a spawned task that throws fails its instance: a failed event with its error, then a restart")
    func aSpawnedTaskThatThrowsFailsItsInstance() async throws {
        let log = ProbeLog()
        let mailbox = Mailbox<Spawner.Message>(name: "s")
        let supervisor = supervisor()
        var events = supervisor.events().makeAsyncIterator()
        await supervisor.start([.spawner(mailbox: mailbox, log: log)])
        #expect(await events.next()?.summary == "started(s)")

        try await mailbox.ask { .spawn("refresh", .untilDone, { throw InjectedFailure(label: "refresh") }, $0) }
        let failed = await events.next()
        #expect(failed?.summary == "failed(s)")
        if case .failed(_, let error) = failed { #expect(error as? InjectedFailure == InjectedFailure(label: "refresh")) }
        #expect(await events.next()?.summary == "restarted(s, 1)")
        #expect(try await mailbox.ask { .echo(5, $0) } == 5)
        #expect(log.all == ["init", "init", "echo 5"])
        await supervisor.shutdown()
    }

    @Test("a task spawned to run until the instance stops that returns fails the instance")
    func aLoopThatReturnsFailsTheInstance() async throws {
        let log = ProbeLog()
        let mailbox = Mailbox<Spawner.Message>(name: "s")
        let supervisor = supervisor()
        var events = supervisor.events().makeAsyncIterator()
        await supervisor.start([.spawner(mailbox: mailbox, log: log)])
        #expect(await events.next()?.summary == "started(s)")

        try await mailbox.ask { .spawn("timer", .untilStopped, {}, $0) }
        let failed = await events.next()
        #expect(failed?.summary == "failed(s)")
        if case .failed(_, let error) = failed {
            #expect(error as? SupervisedScope.TaskEnded == SupervisedScope.TaskEnded(task: "timer"))
        }
        #expect(await events.next()?.summary == "restarted(s, 1)")
        #expect(try await mailbox.ask { .echo(1, $0) } == 1)
        await supervisor.shutdown()
    }

    @Test("a task spawned until done that returns is no failure")
    func aTaskThatFinishesItsWorkIsNoFailure() async throws {
        let log = ProbeLog()
        let mailbox = Mailbox<Spawner.Message>(name: "s")
        let supervisor = supervisor()
        let events = EventCursor(supervisor.events())
        await supervisor.start([.spawner(mailbox: mailbox, log: log)])
        // The spawner answers once the task has ended (and the scope has seen its end).
        try await mailbox.ask { .spawnAndAwait("drain", .untilDone, { log.append("drained") }, $0) }
        #expect(try await mailbox.ask { .echo(2, $0) } == 2)
        await supervisor.shutdown()
        #expect(await events.rest() == ["started(s)", "stopped(s)", "shutDown(root)"])
        #expect(log.all == ["init", "drained", "echo 2"])
    }

    @Test("a task its component cancels (a timer superseded) ended on request: no failure")
    func aTaskItsComponentCancelsIsNoFailure() async throws {
        let mailbox = Mailbox<Spawner.Message>(name: "s")
        let supervisor = supervisor()
        let events = EventCursor(supervisor.events())
        await supervisor.start([.spawner(mailbox: mailbox, log: ProbeLog())])
        let clock = self.clock
        try await mailbox.ask { .spawnAndCancel("timer", { try await clock.sleep(for: .seconds(3600)) }, $0) }
        #expect(try await mailbox.ask { .echo(4, $0) } == 4)
        await supervisor.shutdown()
        #expect(await events.rest() == ["started(s)", "stopped(s)", "shutDown(root)"])
    }

    @Test("restarting an instance cancels its spawned tasks; their cancellation is no second failure")
    func restartingCancelsSpawnedTasks() async throws {
        let log = ProbeLog()
        let mailbox = Mailbox<Spawner.Message>(name: "s")
        let supervisor = supervisor()
        let events = EventCursor(supervisor.events())
        await supervisor.start([.spawner(mailbox: mailbox, log: log)])
        let cancelled = Latch()
        let clock = self.clock
        try await mailbox.ask { .spawn("timer", .untilStopped, {
            do { try await clock.sleep(for: .seconds(3600)) } catch { cancelled.open(); throw error }
        }, $0) }
        await clock.waitForSleepers(1)

        try mailbox.send(.crash)
        await cancelled.wait()
        #expect(await events.until("restarted(s, 1)") == ["started(s)", "failed(s)", "restarted(s, 1)"])
        #expect(try await mailbox.ask { .echo(3, $0) } == 3)
        await supervisor.shutdown()
        #expect(await events.rest() == ["stopped(s)", "shutDown(root)"])
    }

    @Test("shutting down cancels the instance's spawned tasks")
    func shutdownCancelsSpawnedTasks() async throws {
        let mailbox = Mailbox<Spawner.Message>(name: "s")
        let supervisor = supervisor()
        let events = EventCursor(supervisor.events())
        await supervisor.start([.spawner(mailbox: mailbox, log: ProbeLog())])
        let cancelled = Latch()
        let clock = self.clock
        try await mailbox.ask { .spawn("timer", .untilStopped, {
            do { try await clock.sleep(for: .seconds(3600)) } catch { cancelled.open(); throw error }
        }, $0) }
        await clock.waitForSleepers(1)
        await supervisor.shutdown()
        await cancelled.wait()
        #expect(await events.rest() == ["started(s)", "stopped(s)", "shutDown(root)"])
    }

    @Test("a closed scope starts nothing")
    func aClosedScopeStartsNothing() {
        let scope = SupervisedScope {}
        scope.close()
        #expect(scope.spawn("late") {} == nil)
    }

    @Test("what a spawned task's end means for its instance")
    func whatATasksEndMeans() {
        let failure: Result<Void, any Error> = .failure(InjectedFailure(label: "x"))
        func verdict(_ outcome: Result<Void, any Error>, _ lifetime: SupervisedScope.Lifetime,
                     cancelled: Bool = false, closed: Bool = false) -> (any Error)? {
            SupervisedScope.failure(of: outcome, task: "t", lifetime: lifetime, cancelled: cancelled, scopeClosed: closed)
        }
        #expect(verdict(failure, .untilDone) is InjectedFailure)
        #expect(verdict(failure, .untilStopped) is InjectedFailure)
        #expect(verdict(.success(()), .untilDone) == nil)
        #expect(verdict(.success(()), .untilStopped) as? SupervisedScope.TaskEnded == SupervisedScope.TaskEnded(task: "t"))
        // Cancelled by its component: stopped on request, however it ends.
        #expect(verdict(.failure(CancellationError()), .untilDone, cancelled: true) == nil)
        #expect(verdict(.success(()), .untilStopped, cancelled: true) == nil)
        // Once the instance has ended, nothing its tasks do counts.
        #expect(verdict(failure, .untilStopped, closed: true) == nil)
        #expect(verdict(.success(()), .untilStopped, closed: true) == nil)
    }
}

/// A test component that starts tasks in its supervised scope on demand.
actor Spawner: Component {
    enum Message: Sendable {
        /// Spawns `body` under `name` and answers at once.
        case spawn(String, SupervisedScope.Lifetime, @Sendable () async throws -> Void, Reply<Void>)
        /// Spawns `body` and answers once its task has ended.
        case spawnAndAwait(String, SupervisedScope.Lifetime, @Sendable () async throws -> Void, Reply<Void>)
        /// Spawns `body` to run until stopped, cancels it, and answers once it has ended.
        case spawnAndCancel(String, @Sendable () async throws -> Void, Reply<Void>)
        /// Answers `value`, after logging it.
        case echo(Int, Reply<Int>)
        /// Fails the component.
        case crash
    }

    let scope: SupervisedScope
    let log: ProbeLog

    init(scope: SupervisedScope, log: ProbeLog) {
        self.scope = scope
        self.log = log
        log.append("init")
    }

    func handle(_ message: consuming Message) async throws {
        switch message {
        case .spawn(let name, let lifetime, let body, let reply):
            scope.spawn(name, lifetime: lifetime, body)
            reply.succeed(())
        case .spawnAndAwait(let name, let lifetime, let body, let reply):
            await scope.spawn(name, lifetime: lifetime, body)?.value
            reply.succeed(())
        case .spawnAndCancel(let name, let body, let reply):
            let task = scope.spawn(name, lifetime: .untilStopped, body)
            task?.cancel()
            await task?.value
            reply.succeed(())
        case .echo(let value, let reply):
            log.append("echo \(value)")
            reply.succeed(value)
        case .crash:
            throw InjectedFailure(label: "crash")
        }
    }
}

extension ChildSpec {
    static func spawner(mailbox: Mailbox<Spawner.Message>, log: ProbeLog) -> ChildSpec {
        .component(mailbox: mailbox) { scope in Spawner(scope: scope, log: log) }
    }
}
