/// Keeps the client's connectivity state from combinable sources (an active probe, the
/// outcomes of the client's own requests, the OS's link state, the app) and publishes each
/// debounced change: the current state in a ``LatestValue`` (read without a message by the
/// client before each write that may be queued) and ``ConnectivityEvent``s for subscribers
/// (the sync coordinator drains on `online`). The decisions are ``ConnectivityMachine``'s.
///
/// Sources are not in this actor: each is a task (the probe, the link watcher) or a caller
/// that sends `observe` to its mailbox, so a slow probe never delays a message.
actor NetworkMonitor: Component {
    /// The messages the monitor understands: its whole API.
    enum Message: Sendable {
        /// An observation from a source (tell).
        case observe(ConnectivityState, ConnectivitySource)
        /// A request failed as it would were the network gone (its host's name did not resolve,
        /// the network was unreachable), which one server's trouble causes too (tell): probe
        /// now when a probe is configured; the state stays as it is until the probe answers.
        case suspect
        /// The debounce timer of `generation` fired (tell, from the timer's task).
        case settle(generation: Int)
        /// The state published once every message sent before this one was handled (ask).
        case state(Reply<ConnectivityState>)
    }

    /// What every instance runs with; it outlives instances.
    struct Environment: Sendable {
        let mailbox: Mailbox<Message>
        /// The state last published: a restarted instance starts from it.
        let current: LatestValue<ConnectivityState>
        /// What the observations add up to before debouncing: the client reports request
        /// successes while this is not `online`, even if the published state still is.
        let observed: LatestValue<ConnectivityState>
        let events: EventBroadcaster<ConnectivityEvent>
        let debounce: Duration
        let clock: any TimeSource
        /// Wakes the probe for a `suspect` observation; nil without a probe.
        var probeNow: WakeSignal? = nil
    }

    private let environment: Environment
    /// Where the debounce timer runs: cancelled with this instance.
    private let scope: SupervisedScope
    private var machine: ConnectivityMachine
    private var timer: Task<Void, Never>?

    init(_ environment: Environment, scope: SupervisedScope) {
        self.environment = environment
        self.scope = scope
        machine = ConnectivityMachine(debounce: environment.debounce, published: environment.current.value)
    }

    func handle(_ message: consuming Message) {
        switch consume message {
        case .observe(let state, let source):
            let action = machine.observe(state, from: source)
            environment.observed.publish(machine.combined)
            switch action {
            case .none:
                break
            case .publish(let state, let source):
                publish(state, source)
            case .cancelTimer:
                timer?.cancel()
                timer = nil
            case .settleAfter(let delay, let generation):
                timer?.cancel()
                let (clock, mailbox) = (environment.clock, environment.mailbox)
                timer = scope.spawn("debounce") {
                    // Cancelled by a newer observation: a cancelled task's end is no failure.
                    try await clock.sleep(for: delay)
                    // Refused only once the mailbox is closed for good (shutdown).
                    try? mailbox.send(.settle(generation: generation))
                }
            }
        case .suspect:
            environment.probeNow?.wake()
        case .settle(let generation):
            if let (state, source) = machine.settle(generation: generation) {
                timer = nil
                publish(state, source)
            }
        case .state(let reply):
            reply.succeed(machine.published)
        }
    }

    private func publish(_ state: ConnectivityState, _ source: ConnectivitySource) {
        environment.current.publish(state)
        environment.events.publish(ConnectivityEvent(state: state, source: source))
    }
}
