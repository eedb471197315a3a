import Foundation

/// Admission control (a bound on requests in flight, then a bounded queue ordered by
/// ``RequestPriority``, then `overloaded` for the least urgent), the retry budget, and the
/// counters. The bound is the client's fixed limit, one ``AdmissionLane`` for every call, or,
/// with ``APIClient/Configuration/Limits/adaptive``, one lane per origin whose limit follows the
/// origin's latency (``AdaptiveLimit``), fed by the samples callers leave as they finish. It never runs a request: an admitted request runs in its
/// caller's task (``Handle/admit(_:deadline:priority:origin:)``), which the pipeline cancels if it stops while
/// the request runs (``RunningCall``).
///
/// Per request it handles one message, `admit` (an ask, answered when a slot is free): a caller
/// leaves the call it finished in ``FinishedCalls``, collected with the next message, and sends
/// `finished` only while calls wait for a slot. Callers reach it through a ``Handle``; ``child(_:)`` wires one under a
/// supervisor.
actor RequestPipeline: Component {
    /// The messages the request pipeline understands: its whole API.
    enum Message: Sendable {
        /// Answer once the request may run, or `timeout` at its deadline if no slot frees
        /// before, or `overloaded` if it is shed (ask, from the caller's task).
        case admit(Admission, RunningCall, Reply<Void>)
        /// Answer at once whether a hedge may run: a slot free now (a hedge never waits for
        /// one) and a permit from the retry budget (ask, from the hedging step).
        case admitHedge(Admission, RunningCall, Reply<Bool>)
        /// The caller gave up on this request before it was admitted (tell).
        case cancel(RequestID)
        /// An admitted request ended while calls wait; its slot is free (tell, from the
        /// caller's task).
        case finished(FinishedCalls.Call)
        /// May one more retry be made? Answers whether the retry budget had one (ask).
        case retryPermit(Reply<Bool>)
        /// The pipeline's counters (ask).
        case stats(Reply<PipelineStats>)
        /// The earliest deadline of a waiting request came (tell, from the pipeline's timer).
        case sweep
    }

    /// What a caller asks admission for.
    struct Admission: Sendable {
        let id: RequestID
        /// When it must be over, on the pipeline's clock.
        let deadline: Duration
        let priority: RequestPriority
        /// Its origin: its lane under an adaptive limit.
        let origin: HTTPOrigin?
    }

    /// A request holding a slot: its work, its lane, and the calls in flight in that lane when
    /// it started (what its sample is read against).
    private struct Admitted {
        let call: RunningCall
        let lane: HTTPOrigin?
        let inflight: Int
    }

    /// What every instance runs with.
    struct Environment: Sendable {
        let mailbox: Mailbox<Message>
        let maxConcurrentRequests: Int
        let maxQueuedRequests: Int
        let retryBudget: RetryBudget
        let clock: any TimeSource
        /// One lane per origin with this limit; `nil`: one fixed lane for every call.
        var adaptive: ConcurrencyLimitPolicy? = nil
        /// Where a lane's limit changes are published.
        var events: EventBroadcaster<RequestEvent>? = nil
        /// Where callers leave the calls they finished (shared by every instance).
        let finished = FinishedCalls()
    }

    private let environment: Environment
    /// Where the sweep timer runs: cancelled with this instance.
    private let scope: SupervisedScope
    private var budget: RetryBudget
    private var running: [RequestID: Admitted] = [:]
    /// The fixed lane under `nil`; under an adaptive limit one lane per origin, made on its
    /// first call and kept, with what its limit learnt, for the pipeline's life.
    private var lanes: [HTTPOrigin?: AdmissionLane] = [:]
    /// Calls waiting in every lane.
    private var waitingCount = 0
    private var stats = PipelineStats()
    /// The timer that wakes the pipeline at the earliest deadline of a waiting request, and
    /// that deadline: a request never waits for a slot past its deadline.
    private var sweepTimer: Task<Void, Never>?
    private var sweepAt: Duration?

    init(_ environment: Environment, scope: SupervisedScope) {
        self.environment = environment
        self.scope = scope
        budget = environment.retryBudget
    }

    /// A pipeline under supervision: the handle callers use, and the child spec that runs a
    /// fresh instance on the same mailbox after each failure.
    static func child(_ environment: Environment) -> (Handle, ChildSpec) {
        let spec = ChildSpec.component(mailbox: environment.mailbox) { RequestPipeline(environment, scope: $0) }
        return (Handle(mailbox: environment.mailbox, finished: environment.finished), spec)
    }

    func handle(_ message: consuming Message) {
        stats.messagesHandled += 1
        // Slots freed since the last message first, so admission sees them; and again after the
        // message, so the count of waiting calls callers read is the one it left.
        collectFinished()
        defer { collectFinished() }
        switch consume message {
        case .admit(let admission, let call, let reply):
            let lane = environment.adaptive == nil ? nil : admission.origin
            admit(WaitingRequest(
                id: admission.id, deadline: admission.deadline, call: call, reply: reply, priority: admission.priority, lane: lane))
        case .admitHedge(let admission, let call, let reply):
            admitHedge(admission, call, reply)
        case .finished(let call):
            finish(call)
        case .cancel(let id):
            // The caller was already answered `cancelled`. A running request ends in its
            // cancelled caller's task and sends `finished`; a queued one leaves the queue.
            for key in lanes.keys where lanes[key]?.remove(id) == true {
                waitingCount -= 1
                break
            }
        case .retryPermit(let reply):
            let granted = budget.withdraw()
            if !granted { stats.retriesDenied += 1 }
            reply.succeed(granted)
        case .sweep:
            (sweepTimer, sweepAt) = (nil, nil)
            let now = environment.clock.now
            var next: Duration?
            for key in lanes.keys {
                guard let swept = lanes[key]?.removeExpired(at: now) else { continue }
                let (expired, left) = swept
                waitingCount -= expired.count
                for request in expired { request.reply.fail(NetworkError.timeout(.request, underlying: nil)) }
                if let left { next = min(next ?? left, left) }
            }
            if let next { scheduleSweep(at: next) }
        case .stats(let reply):
            var snapshot = stats
            snapshot.inFlight = running.count
            snapshot.queued = waitingCount
            reply.succeed(snapshot)
        }
    }

    /// Frees the slots of the calls callers left, starts waiting ones in them, and tells the
    /// callers how many calls still wait.
    private func collectFinished() {
        while true {
            let finished = environment.finished.collect(waiting: waitingCount)
            if finished.isEmpty { return }
            for call in finished { finish(call) }
        }
    }

    /// Frees the slot of a call that ended, feeds its sample to its lane's limit, and starts
    /// the calls waiting in that lane.
    private func finish(_ finished: FinishedCalls.Call) {
        guard let admitted = running.removeValue(forKey: finished.id) else { return }
        lanes[admitted.lane]?.running -= 1
        if let sample = finished.sample, let limit = lanes[admitted.lane]?.record(sample, inflight: admitted.inflight),
           let origin = admitted.lane, let events = environment.events, events.hasSubscribers {
            events.publish(.concurrencyLimitChanged(finished.id, origin: CircuitBreakerStep.text(of: origin), limit: limit))
        }
        startWaiting(in: admitted.lane)
    }

    /// Makes the lane of `key` on its first call.
    private func makeLane(_ key: HTTPOrigin?) {
        guard lanes[key] == nil else { return }
        let limit: AdmissionLane.Limit = if key != nil, let policy = environment.adaptive {
            .adaptive(AdaptiveLimit(policy: policy))
        } else {
            .fixed(environment.maxConcurrentRequests)
        }
        lanes[key] = AdmissionLane(limit, maxQueued: environment.maxQueuedRequests)
    }

    private func admit(_ request: WaitingRequest) {
        guard !request.reply.isAnswered else { return }
        let key = request.lane
        makeLane(key)
        switch lanes[key]?.arrive(request) ?? .refused {
        case .refused:
            stats.rejected += 1
            stats.shed += 1
            request.reply.fail(NetworkError.overloaded)
        case .runs:
            budget.deposit()
            stats.admitted += 1
            start(request)
        case .waits(let shed):
            budget.deposit()
            stats.admitted += 1
            if let shed {
                // It keeps its place in the count: the newcomer took it.
                stats.shed += 1
                shed.reply.fail(NetworkError.overloaded)
            } else {
                waitingCount += 1
            }
            scheduleSweep(at: request.deadline)
        }
    }

    /// Gives a hedge a slot only if one is free now and no call waits for one, and only with a
    /// permit from the retry budget: a hedge is load the origin did not need, so it neither
    /// queues nor goes before a waiting call. It is not counted in `admitted`, and deposits
    /// nothing in the budget (only calls earn retries).
    private func admitHedge(_ admission: Admission, _ call: RunningCall, _ reply: Reply<Bool>) {
        let key = environment.adaptive == nil ? nil : admission.origin
        makeLane(key)
        guard lanes[key]?.hasFreeSlot == true else {
            stats.hedgesRefused += 1
            reply.succeed(false)
            return
        }
        guard budget.withdraw() else {
            stats.retriesDenied += 1
            reply.succeed(false)
            return
        }
        guard reply.succeed(true) else { return }
        occupy(admission.id, call, lane: key)
    }

    /// Makes sure the pipeline is woken at `deadline` (or before) to answer the waiting requests
    /// whose deadline passed.
    private func scheduleSweep(at deadline: Duration) {
        if let sweepAt, sweepAt <= deadline { return }
        sweepTimer?.cancel()
        sweepAt = deadline
        let (clock, mailbox) = (environment.clock, environment.mailbox)
        // A superseded timer is cancelled here, which its scope does not count as a failure.
        sweepTimer = scope.spawn("sweep") {
            try await clock.sleep(for: deadline - clock.now)
            try? mailbox.send(.sweep)   // refused only once the mailbox is closed (shutdown)
        }
    }

    private func startWaiting(in key: HTTPOrigin?) {
        while let next = lanes[key]?.next() {
            waitingCount -= 1
            start(next)
        }
    }

    /// Gives `request` its slot, unless its caller left meanwhile (then it never runs and sends
    /// no `finished`).
    private func start(_ request: WaitingRequest) {
        guard request.reply.succeed(()) else { return }
        occupy(request.id, request.call, lane: request.lane)
    }

    /// Call `id` holds a slot of `lane` from now on.
    private func occupy(_ id: RequestID, _ call: RunningCall, lane: HTTPOrigin?) {
        lanes[lane]?.running += 1
        running[id] = Admitted(call: call, lane: lane, inflight: lanes[lane]?.running ?? 1)
    }

    /// This instance is gone (shut down, or failed and replaced): its running requests are
    /// stopped (their callers are answered as its queued ones are: `componentUnavailable` once
    /// the mailbox is closed, `componentRestarted` otherwise), so nothing outlives it.
    deinit {
        sweepTimer?.cancel()
        for admitted in running.values { admitted.call.stop() }
    }
}
