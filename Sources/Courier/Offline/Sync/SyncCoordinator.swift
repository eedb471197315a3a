/// Drains the offline queue: when connectivity comes back, on `syncNow`, when items are added,
/// and periodically while items wait; never two drains at once; a drain stops when connectivity drops. The decisions
/// are ``DrainMachine``'s; each drain (``Drain``) runs in a task of the instance's
/// ``SupervisedScope`` and reports its end as a message, so the mailbox is never blocked by a
/// replay. Each instance starts by looking for writes stored by an earlier run (or left by
/// its predecessor's cancelled drain) and drains them.
///
/// Connectivity reaches it as messages: a supervised task forwards the monitor's
/// ``ConnectivityEvent`` stream into this mailbox (see ``forwardConnectivity(_:events:current:)``), and
/// another sends the periodic `tick`.
actor SyncCoordinator: Component {
    /// The messages the coordinator understands: its whole API.
    enum Message: Sendable {
        /// The monitor published a connectivity state (tell, from the forwarding task).
        case connectivity(ConnectivityState)
        /// Drain now, even if the monitor says offline; answered when the coordinator is idle
        /// again, with what the drains it waited for did (ask).
        case syncNow(Reply<SyncProgress>)
        /// The periodic timer fired (tell).
        case tick
        /// Items were added to the queue or queued again (tell, from the client).
        case itemsAdded
        /// Someone signed in (tell, from the client): writes waiting for their user may go now.
        case signedIn
        /// A drain ended (tell, from its task); `instance` names the coordinator that started it.
        case drainFinished(instance: UInt64, generation: Int, SyncProgress)
    }

    /// What every instance runs with; it outlives instances.
    struct Environment: Sendable {
        let mailbox: Mailbox<Message>
        let queue: any DrainQueue
        let send: Drain.Send
        /// The session's identity now (``Drain/identity``).
        var identity: @Sendable () async -> String? = { nil }
        let resolver: ConflictResolver
        let connectivity: LatestValue<ConnectivityState>
        let progress: EventBroadcaster<SyncProgress>
        /// The drain task in flight, whichever instance started it: a new drain first stops
        /// and awaits it, so two never run at once even across a restart.
        let running: Locked<DrainSlot>
    }

    private let environment: Environment
    /// Where the drains and the launch's look at the queue run: cancelled with this instance.
    private let scope: SupervisedScope
    private let instance = UInt64.random(in: .min ... .max)
    private var machine: DrainMachine
    /// `syncNow` callers, answered when the coordinator is idle again, and what the drains that
    /// ended since the first of them joined did (the first drain's total, everyone's counts).
    private var waiters: [Reply<SyncProgress>] = []
    private var summary: SyncProgress?

    init(_ environment: Environment, scope: SupervisedScope) {
        self.environment = environment
        self.scope = scope
        machine = DrainMachine(connectivity: environment.connectivity.value)
        let (queue, mailbox) = (environment.queue, environment.mailbox)
        scope.spawn("resumeStoredWrites") {
            // Waits for the queue to open; refused only once the mailbox is closed (shutdown).
            if await queue.waitingCount() > 0 { try? mailbox.send(.itemsAdded) }
        }
    }

    func handle(_ message: consuming Message) {
        switch consume message {
        case .connectivity(let state):
            perform(machine.connectivityChanged(state))
        case .syncNow(let reply):
            waiters.append(reply)
            perform(machine.requested(by: .app, hasWaiting: true))
        case .tick:
            perform(machine.requested(by: .timer, hasWaiting: environment.queue.waiting.value > 0))
        case .itemsAdded:
            perform(machine.requested(by: .newItems, hasWaiting: environment.queue.waiting.value > 0))
        case .signedIn:
            // Writes waiting for their user are not counted as waiting: one drain looks.
            perform(machine.requested(by: .newItems, hasWaiting: true))
        case .drainFinished(let instance, let generation, let progress):
            guard instance == self.instance else { return }
            if !waiters.isEmpty {
                // The later drain's total counts what the earlier one left waiting, not what it delivered.
                summary = summary.map { SyncProgress(
                    total: max($0.total, $0.done + progress.total), done: $0.done + progress.done,
                    failed: $0.failed + progress.failed, isFinished: true)
                } ?? progress
            }
            perform(machine.finished(generation: generation))
        }
        if machine.phase == .idle, !waiters.isEmpty {
            let summary = self.summary ?? SyncProgress(total: 0, isFinished: true)
            for waiter in waiters { waiter.succeed(summary) }
            waiters = []
            self.summary = nil
        }
    }

    private func perform(_ action: DrainMachine.Action) {
        switch action {
        case .none:
            break
        case .stop:
            environment.running.withLock { $0.task }?.cancel()
        case .start(let generation, let forced):
            let drain = Drain(
                queue: environment.queue, send: environment.send, resolver: environment.resolver,
                connectivity: environment.connectivity, progress: environment.progress, forced: forced,
                identity: environment.identity)
            let (mailbox, instance) = (environment.mailbox, instance)
            environment.running.withLock { running in
                guard !running.closed else { return }   // the client is shutting down
                let previous = running.task
                previous?.cancel()
                running.task = scope.spawn("drain") {
                    await previous?.value
                    // A drain that throws fails this instance (its scope's failure).
                    let progress = try await drain.run()
                    try? mailbox.send(.drainFinished(instance: instance, generation: generation, progress))
                }
            }
        }
    }

    /// Forwards the monitor's connectivity into `mailbox` until cancelled: the current state
    /// first, then every published change. Run as a supervised task beside the coordinator.
    static func forwardConnectivity(
        _ mailbox: Mailbox<Message>, events: EventBroadcaster<ConnectivityEvent>, current: LatestValue<ConnectivityState>
    ) async throws {
        let changes = events.subscribe()
        try mailbox.send(.connectivity(current.value))
        for await change in changes {
            try mailbox.send(.connectivity(change.state))
        }
    }
}
