import Foundation

/// Admission control (a bound on requests in flight, then a bounded queue, then `overloaded`),
/// the retry budget, and the counters. It never runs a request: an admitted request runs in its
/// caller's task (``Handle/admit(_:deadline:)``), which the pipeline cancels if it stops while
/// the request runs (``RunningCall``).
///
/// Per request it handles one message, `admit` (an ask, answered when a slot is free): a caller
/// leaves the call it finished in ``FinishedCalls``, collected with the next message, and sends
/// `finished` only while calls wait for a slot. Callers reach it through a ``Handle``; ``child(_:)`` wires one under a
/// supervisor.
actor RequestPipeline: Component {
    /// The messages the request pipeline understands: its whole API.
    enum Message: Sendable {
        /// Answer once request `id` may run, or `timeout` at `deadline` if no slot frees before
        /// (ask, from the caller's task).
        case admit(RequestID, deadline: Duration, RunningCall, Reply<Void>)
        /// The caller gave up on this request before it was admitted (tell).
        case cancel(RequestID)
        /// An admitted request ended while calls wait; its slot is free (tell, from the
        /// caller's task).
        case finished(RequestID)
        /// May one more retry be made? Answers whether the retry budget had one (ask).
        case retryPermit(Reply<Bool>)
        /// The pipeline's counters (ask).
        case stats(Reply<PipelineStats>)
        /// The earliest deadline of a waiting request came (tell, from the pipeline's timer).
        case sweep
    }

    /// What every instance runs with.
    struct Environment: Sendable {
        let mailbox: Mailbox<Message>
        let maxConcurrentRequests: Int
        let maxQueuedRequests: Int
        let retryBudget: RetryBudget
        let clock: any TimeSource
        /// Where callers leave the calls they finished (shared by every instance).
        let finished = FinishedCalls()
    }

    private let environment: Environment
    /// Where the sweep timer runs: cancelled with this instance.
    private let scope: SupervisedScope
    private var budget: RetryBudget
    private var running: [RequestID: RunningCall] = [:]
    private var waiting = RequestQueue()
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
        case .admit(let id, let deadline, let call, let reply):
            admit(WaitingRequest(id: id, deadline: deadline, call: call, reply: reply))
        case .finished(let id):
            running[id] = nil
            startWaiting()
        case .cancel(let id):
            // The caller was already answered `cancelled`. A running request ends in its
            // cancelled caller's task and sends `finished`; a queued one leaves the queue.
            waiting.remove(id)
        case .retryPermit(let reply):
            let granted = budget.withdraw()
            if !granted { stats.retriesDenied += 1 }
            reply.succeed(granted)
        case .sweep:
            (sweepTimer, sweepAt) = (nil, nil)
            let (expired, next) = waiting.removeExpired(at: environment.clock.now)
            for request in expired { request.reply.fail(NetworkError.timeout(.request, underlying: nil)) }
            if let next { scheduleSweep(at: next) }
        case .stats(let reply):
            var snapshot = stats
            snapshot.inFlight = running.count
            snapshot.queued = waiting.count
            reply.succeed(snapshot)
        }
    }

    /// Frees the slots of the calls callers left, starts waiting ones in them, and tells the
    /// callers how many calls still wait.
    private func collectFinished() {
        while true {
            let finished = environment.finished.collect(waiting: waiting.count)
            if finished.isEmpty { return }
            for id in finished { running[id] = nil }
            startWaiting()
        }
    }

    private func admit(_ request: WaitingRequest) {
        guard !request.reply.isAnswered else { return }
        let canRun = running.count < environment.maxConcurrentRequests
        guard canRun || waiting.count < environment.maxQueuedRequests else {
            stats.rejected += 1
            request.reply.fail(NetworkError.overloaded)
            return
        }
        budget.deposit()
        stats.admitted += 1
        if canRun {
            start(request)
        } else {
            waiting.append(request)
            scheduleSweep(at: request.deadline)
        }
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

    private func startWaiting() {
        while running.count < environment.maxConcurrentRequests, let next = waiting.popFirst() {
            start(next)
        }
    }

    /// Gives `request` its slot, unless its caller left meanwhile (then it never runs and sends
    /// no `finished`).
    private func start(_ request: WaitingRequest) {
        if request.reply.succeed(()) { running[request.id] = request.call }
    }

    /// This instance is gone (shut down, or failed and replaced): its running requests are
    /// stopped (their callers are answered as its queued ones are: `componentUnavailable` once
    /// the mailbox is closed, `componentRestarted` otherwise), so nothing outlives it.
    deinit {
        sweepTimer?.cancel()
        for call in running.values { call.stop() }
    }
}
