/// Starts, watches and restarts a set of children (components, or plain tasks).
///
/// Children start in the declared order, which is their dependency order, and stop in the
/// reverse order. When a child fails, the ``RestartPlanner`` decides: restart it (one-for-one)
/// or it and every child started after it (rest-for-one), after a jittered backoff, unless the
/// intensity limit is exceeded: then the supervisor stops every child and gives up, and askers
/// of their mailboxes get ``RuntimeError/componentUnavailable(_:)``. Everything that happens is
/// published on ``events(buffer:)``.
///
/// Children report their exits to the supervisor as messages on its own mailbox.
package actor Supervisor: Component {
    /// The supervisor's policies and its injected clock and randomness.
    package struct Configuration: Sendable {
        /// Which children to restart when one fails. Default one-for-one.
        var strategy: RestartStrategy
        /// The intensity limit and the backoff before a restart. Default 3 in 5 s; 10 ms
        /// doubling to 1 s, jittered.
        var restarts: RestartPolicy
        /// The clock for backoff, the intensity window and shutdown deadlines.
        var clock: any TimeSource
        /// The randomness for backoff jitter.
        var random: any RandomSource

        /// Creates a configuration; every parameter has the default documented on its property.
        package init(
            strategy: RestartStrategy = .oneForOne,
            restarts: RestartPolicy = RestartPolicy(),
            clock: any TimeSource = SystemTimeSource(),
            random: any RandomSource = SystemRandomSource()
        ) {
            self.strategy = strategy
            self.restarts = restarts
            self.clock = clock
            self.random = random
        }
    }

    /// Where the supervisor is in its life.
    package enum Status: Sendable, Equatable {
        /// Created; ``start(_:)`` not called yet.
        case idle
        /// Children are running and failures are handled.
        case running
        /// The intensity limit was exceeded; children are stopped and nothing restarts.
        case gaveUp
        /// ``shutdown()`` has begun or finished.
        case stopped
    }

    /// The supervisor's name, used in events.
    package nonisolated let name: String
    /// Where the supervisor is in its life.
    package private(set) var status: Status = .idle

    /// The supervisor's own messages: what its children's tasks tell it.
    package enum Message: Sendable {
        /// An instance of child `index` ended with `outcome`.
        case childExited(index: Int, incarnation: Int, outcome: Result<Void, any Error>)
        /// Restart plan `plan`'s siblings have stopped and its backoff is over: start its children.
        case restartDue(plan: Int)
        /// A sibling stopped for a rest-for-one restart missed its deadline: give up, since
        /// cancelling it would end its mailbox for good.
        case siblingMissedDeadline(index: Int)
    }

    private struct Child {
        let spec: ChildSpec
        var incarnation = 0
        var restarts = 0
        var task: Task<Void, Never>?
        var exited = Latch()
        var isRunning = false
        /// Stopped on purpose as part of a sibling's restart: its exit is not a failure.
        var isBeingReplaced = false
        /// Left stopped for good (temporary, or transient that exited normally).
        var isRemoved = false
    }

    private let configuration: Configuration
    private var planner: RestartPlanner
    private var children: [Child] = []
    private let inbox: Mailbox<Message>
    private let broadcaster = EventBroadcaster<SupervisionEvent>()
    private var loop: Task<Void, Never>?
    private var stopping: Task<Void, Never>?
    /// The restart waiting for its siblings to stop and for its backoff. At most one: a failure
    /// while it waits merges into it, so children always restart together and in start order.
    private var pendingRestart: (id: Int, children: [Int], timer: Task<Void, Never>)?
    private var nextPlanID = 0

    /// Creates an idle supervisor.
    package init(name: String = "supervisor", configuration: Configuration = Configuration()) {
        self.name = name
        self.configuration = configuration
        self.planner = RestartPlanner(strategy: configuration.strategy, policy: configuration.restarts)
        self.inbox = Mailbox(name: name)
    }

    /// A stream of every supervision event from now on; it ends after ``SupervisionEvent/shutDown(supervisor:)``.
    /// Subscribe before ``start(_:)`` to see the `started` events.
    package nonisolated func events(buffer: Int = .max) -> AsyncStream<SupervisionEvent> {
        broadcaster.subscribe(bufferingPolicy: .bufferingNewest(buffer))
    }

    /// Starts `specs` in order. Call once; later calls, and calls after ``shutdown()``, do nothing.
    package func start(_ specs: [ChildSpec]) {
        guard status == .idle else { return }
        status = .running
        let inbox = self.inbox
        loop = Task { await self.consume(inbox) }
        children = specs.map { Child(spec: $0) }
        for index in children.indices {
            launch(index)
            broadcaster.publish(.started(child: children[index].spec.name))
        }
    }

    /// Stops every child in reverse start order: each gets its deadline to drain and return,
    /// then is cancelled. Askers of messages still queued get
    /// ``RuntimeError/componentUnavailable(_:)``. Idempotent; returns when all is stopped.
    package func shutdown() async {
        if status == .idle || status == .running { status = .stopped }
        pendingRestart?.timer.cancel()
        pendingRestart = nil
        if stopping == nil { stopping = stopAll() }
        await stopping?.value
        status = .stopped
        inbox.close()
        await loop?.value
        if !broadcaster.isFinished {
            broadcaster.publish(.shutDown(supervisor: name))
            broadcaster.finish()
        }
    }

    package func handle(_ message: consuming Message) {
        switch message {
        case .childExited(let index, let incarnation, let outcome):
            childExited(index, incarnation: incarnation, outcome: outcome)
        case .restartDue(let plan):
            guard status == .running, let pending = pendingRestart, pending.id == plan else { return }
            pendingRestart = nil
            for index in pending.children where !children[index].isRunning && !children[index].isRemoved {
                children[index].restarts += 1
                launch(index)
                broadcaster.publish(.restarted(child: children[index].spec.name, count: children[index].restarts))
            }
        case .siblingMissedDeadline(let index):
            guard status == .running, children.indices.contains(index) else { return }
            giveUp(because: index)
        }
    }

    // MARK: - Internals

    private func consume(_ inbox: Mailbox<Message>) async {
        try? await run(inbox, incarnation: 0)
    }

    private func launch(_ index: Int) {
        children[index].incarnation += 1
        let incarnation = children[index].incarnation
        let run = children[index].spec.run
        let exited = Latch()
        let inbox = self.inbox
        let broadcaster = self.broadcaster
        let name = children[index].spec.name
        children[index].exited = exited
        children[index].isRunning = true
        children[index].isBeingReplaced = false
        children[index].task = Task.detached {
            let outcome: Result<Void, any Error>
            do {
                try await run(incarnation)
                outcome = .success(())
            } catch {
                outcome = .failure(error)
                // Published here, before the exit is observable, so that even a failure during
                // shutdown or a sibling's restart shows up, ahead of the child's `stopped`.
                broadcaster.publish(.failed(child: name, error: error))
            }
            exited.open()
            try? inbox.send(.childExited(index: index, incarnation: incarnation, outcome: outcome))
        }
    }

    private func childExited(_ index: Int, incarnation: Int, outcome: Result<Void, any Error>) {
        guard children.indices.contains(index), incarnation == children[index].incarnation else { return }
        children[index].isRunning = false
        let name = children[index].spec.name
        // During shutdown or after giving up, `stopAll` accounts for every child.
        guard status == .running else { return }
        if children[index].isBeingReplaced {
            // Stopped for a sibling's restart; a temporary one stays down for good.
            if children[index].isRemoved { closeForGood(index) }
            return
        }
        let exit: RestartPlanner.Exit
        switch outcome {
        case .success:
            exit = .normal
            broadcaster.publish(.exited(child: name))
        case .failure:
            exit = .failed
        }
        let decision = planner.childExited(
            index, exit: exit, restartTypes: children.map(\.spec.restart),
            now: configuration.clock.now, randomUnit: configuration.random.nextUnit())
        switch decision {
        case .leaveStopped:
            children[index].isRemoved = true
            closeForGood(index)
        case .giveUp:
            giveUp(because: index)
        case .restart(let indices, let delay):
            scheduleRestart(of: indices, failed: index, after: delay)
        }
    }

    /// Stops the running children after `failed` (rest-for-one), waits for them, waits out the
    /// backoff, then tells the supervisor to start `indices`, merged with any restart already
    /// pending. A sibling that misses its deadline makes the supervisor give up: stopping it by
    /// cancellation would end its mailbox for good.
    private func scheduleRestart(of indices: [Int], failed: Int, after delay: Duration) {
        var siblings: [(index: Int, exited: Latch, deadline: Duration)] = []
        if configuration.strategy == .restForOne {
            for sibling in children.indices.dropFirst(failed + 1).reversed() where children[sibling].isRunning {
                if !children[sibling].isBeingReplaced {
                    children[sibling].isBeingReplaced = true
                    if !indices.contains(sibling) { children[sibling].isRemoved = true }
                    stop(sibling)
                }
                siblings.append((sibling, children[sibling].exited, children[sibling].spec.shutdownDeadline))
            }
        }
        let merged = Set(indices).union(pendingRestart?.children ?? []).sorted()
        pendingRestart?.timer.cancel()
        let plan = nextPlanID
        nextPlanID += 1
        let clock = configuration.clock
        let inbox = self.inbox
        let timer = Task.detached {
            for sibling in siblings where !(await sibling.exited.wait(atMost: sibling.deadline, clock: clock)) {
                if !Task.isCancelled { try? inbox.send(.siblingMissedDeadline(index: sibling.index)) }
                return
            }
            if delay > .zero { try? await clock.sleep(for: delay) }
            if !Task.isCancelled { try? inbox.send(.restartDue(plan: plan)) }
        }
        pendingRestart = (plan, merged, timer)
    }

    /// Gives up after child `index`'s failure: stops everything and restarts nothing.
    private func giveUp(because index: Int) {
        status = .gaveUp
        pendingRestart?.timer.cancel()
        pendingRestart = nil
        broadcaster.publish(.gaveUp(supervisor: name, child: children[index].spec.name))
        stopping = stopAll()
    }

    /// Child `index` (already exited) stays down: close its mailbox and answer what is queued,
    /// so no asker waits for a component that will not come back.
    private func closeForGood(_ index: Int) {
        let spec = children[index].spec
        spec.close?()
        if let discard = spec.discardQueued { Task.detached { await discard() } }
        broadcaster.publish(.stopped(child: spec.name))
    }

    /// Asks the running instance of child `index` to stop without closing its input.
    private func stop(_ index: Int) {
        if let requestStop = children[index].spec.requestStop {
            requestStop(children[index].incarnation)
        } else {
            children[index].task?.cancel()
        }
    }

    /// Closes every child's input in reverse start order, waiting for each to drain within
    /// its deadline (then cancelling it), and answers what is still queued.
    private func stopAll() -> Task<Void, Never> {
        let plan = children.indices.reversed().map { children[$0] }
        let clock = configuration.clock
        let broadcaster = self.broadcaster
        return Task.detached {
            for child in plan {
                if let close = child.spec.close { close() } else { child.task?.cancel() }
                if child.isRunning || !child.exited.isOpen {
                    if !(await child.exited.wait(atMost: child.spec.shutdownDeadline, clock: clock)) {
                        child.task?.cancel()
                        _ = await child.exited.wait(atMost: child.spec.shutdownDeadline, clock: clock)
                    }
                }
                // A child left down for good was closed and drained then (`closeForGood`).
                let alreadyClosed = child.isRemoved && !child.isRunning
                // Only drain when no instance is still consuming the mailbox.
                if !alreadyClosed, child.exited.isOpen { await child.spec.discardQueued?() }
                if !alreadyClosed { broadcaster.publish(.stopped(child: child.spec.name)) }
            }
        }
    }
}
