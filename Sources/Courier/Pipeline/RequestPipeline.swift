import Foundation

/// Runs requests: admission control (a bound on in-flight requests, then a bounded queue, then
/// `overloaded`), the retry budget, and the admitted requests' work (``RequestExecution``: the
/// attempt steps and the retries), run by a pool of long-lived worker tasks (``RequestWorker``).
/// Its mailbox loop never awaits a request's work. Request ids are numbered by the handle,
/// which every instance shares, so an id a failed instance left is never another's.
///
/// Per request the pipeline handles one message, `execute`: a worker leaves the request it
/// finished in ``FinishedRequests``, collected with the next message, and sends `finished` only
/// while requests wait for a slot. Callers reach it through a ``Handle``; ``child(_:events:)``
/// wires one under a supervisor.
actor RequestPipeline: Component {
    /// The messages the request pipeline understands: its whole API.
    enum Message: Sendable {
        /// Run this request and answer its reply (ask).
        case execute(PendingRequest)
        /// The caller gave up on this request: stop its work (tell).
        case cancel(RequestID)
        /// A request's work ended while requests wait; its admission slot is free (tell, from
        /// the request's worker).
        case finished(RequestID)
        /// May one more retry be made? Answers whether the retry budget had one (ask).
        case retryPermit(Reply<Bool>)
        /// The pipeline's counters (ask).
        case stats(Reply<PipelineStats>)
        /// The earliest deadline of a waiting request came (tell, from the pipeline's timer).
        case sweep
    }

    private let execution: RequestExecution
    private let maxConcurrentRequests: Int
    private let maxQueuedRequests: Int
    private var budget: RetryBudget
    private var running: [RequestID: (worker: RequestWorker, reply: Reply<HTTPResponse>, cancelled: Bool)] = [:]
    /// Workers with nothing to run; at most `maxConcurrentRequests` workers exist.
    private var idle: [RequestWorker] = []
    private var waiting = RequestQueue()
    private var stats = PipelineStats()
    /// The timer that wakes the pipeline at the earliest deadline of a waiting request, and
    /// that deadline: a request never waits for a slot past its deadline.
    private var sweepTimer: Task<Void, Never>?
    private var sweepAt: Duration?

    init(execution: RequestExecution, configuration: Configuration) {
        self.execution = execution
        self.maxConcurrentRequests = configuration.maxConcurrentRequests
        self.maxQueuedRequests = configuration.maxQueuedRequests
        self.budget = configuration.retryBudget
    }

    /// A pipeline under supervision: the handle callers use, and the child spec that runs a
    /// fresh instance on the same mailbox after each failure.
    static func child(_ configuration: Configuration, events: EventBroadcaster<RequestEvent>) -> (Handle, ChildSpec) {
        let mailbox = Mailbox<Message>(name: "RequestPipeline")
        let execution = RequestExecution(configuration: configuration, events: events, mailbox: mailbox)
        let spec = ChildSpec.component(mailbox: mailbox) { RequestPipeline(execution: execution, configuration: configuration) }
        return (Handle(mailbox: mailbox, configuration: configuration, execution: execution), spec)
    }

    func handle(_ message: consuming Message) {
        stats.messagesHandled += 1
        // Slots freed since the last message first, so admission sees them; and again after the
        // message, so the count of waiting requests workers read is the one it left.
        collectFinished()
        defer { collectFinished() }
        switch consume message {
        case .execute(let pending):
            admit(pending)
        case .finished(let id):
            release(id)
            startWaiting()
        case .cancel(let id):
            // The caller was already answered `cancelled`; free the request's place.
            if let request = running[id] {
                request.worker.cancel()
                running[id]?.cancelled = true
            } else {
                waiting.remove(id)
            }
        case .retryPermit(let reply):
            let granted = budget.withdraw()
            if !granted { stats.retriesDenied += 1 }
            reply.succeed(granted)
        case .sweep:
            (sweepTimer, sweepAt) = (nil, nil)
            let (expired, next) = waiting.removeExpired(at: execution.configuration.clock.now)
            for pending in expired where !pending.reply.isAnswered {
                execution.reject(pending, with: .timeout(.request, underlying: nil))
            }
            if let next { scheduleSweep(at: next) }
        case .stats(let reply):
            var snapshot = stats
            snapshot.inFlight = running.count
            snapshot.queued = waiting.count
            reply.succeed(snapshot)
        }
    }

    /// Frees the slots of the requests workers left, starts waiting ones in them, and tells the
    /// workers how many requests still wait.
    private func collectFinished() {
        while true {
            let finished = execution.finished.collect(waiting: waiting.count)
            if finished.isEmpty { return }
            for id in finished { release(id) }
            startWaiting()
        }
    }

    /// Request `id` ended: its slot is free, and its worker is reused unless it was cancelled.
    private func release(_ id: RequestID) {
        if let request = running.removeValue(forKey: id), !request.cancelled { idle.append(request.worker) }
    }

    private func admit(_ pending: PendingRequest) {
        guard !pending.reply.isAnswered else { return }
        let canRun = running.count < maxConcurrentRequests
        guard canRun || waiting.count < maxQueuedRequests else {
            stats.rejected += 1
            execution.reject(pending, with: .overloaded)
            return
        }
        budget.deposit()
        stats.admitted += 1
        if canRun {
            start(pending)
        } else {
            waiting.append(pending)
            scheduleSweep(at: pending.deadline)
        }
    }

    /// Makes sure the pipeline is woken at `deadline` (or before) to answer the waiting requests
    /// whose deadline passed.
    private func scheduleSweep(at deadline: Duration) {
        if let sweepAt, sweepAt <= deadline { return }
        sweepTimer?.cancel()
        sweepAt = deadline
        let (clock, mailbox) = (execution.configuration.clock, execution.mailbox)
        sweepTimer = Task {
            do { try await clock.sleep(for: deadline - clock.now) } catch { return }
            try? mailbox.send(.sweep)
        }
    }

    private func startWaiting() {
        while running.count < maxConcurrentRequests, let next = waiting.popFirst() {
            if next.reply.isAnswered { continue }   // cancelled before its `cancel` arrived
            start(next)
        }
    }

    private func start(_ pending: PendingRequest) {
        let worker = idle.popLast() ?? RequestWorker.start(execution)
        running[pending.id] = (worker, pending.reply, false)
        worker.inbox.give((pending, execution.events.hasSubscribers))
    }

    /// This instance is gone (shut down, or failed and replaced): its running requests are
    /// answered as its queued ones are (`componentUnavailable` once the mailbox is closed,
    /// `componentRestarted` otherwise) and their work is cancelled, so nothing outlives it.
    deinit {
        sweepTimer?.cancel()
        for request in running.values {
            request.reply.fail(RuntimeError.replyDropped)
            request.worker.cancel()
        }
        for worker in idle { worker.cancel() }
    }
}
