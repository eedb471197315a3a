import Foundation

/// The messages the request pipeline understands: its whole API.
public enum RequestPipelineMessage: Sendable {
    /// Run this request and answer its reply (ask).
    case execute(PendingRequest)
    /// The caller gave up on this request: stop its work (tell).
    case cancel(RequestID)
    /// A request's work ended; its admission slot is free (tell, from the request's task).
    case finished(RequestID)
    /// May one more retry be made? Answers whether the retry budget had one (ask).
    case retryPermit(Reply<Bool>)
    /// The pipeline's counters (ask).
    case stats(Reply<PipelineStats>)
}

/// A request on its way through the pipeline, with everything needed to run and answer it.
public struct PendingRequest: Sendable {
    /// The request's identifier.
    public let id: RequestID
    /// The request as the facade built it, before interceptors.
    public let request: HTTPRequest
    /// Its per-call options.
    public let options: RequestOptions
    /// When it must be over, on the pipeline's clock (all attempts and waits included).
    public let deadline: Duration
    /// Where the outcome goes.
    public let reply: Reply<HTTPResponse>
}

/// Counters of the request pipeline, for tests, benchmarks and health checks.
public struct PipelineStats: Sendable, Equatable {
    /// Requests whose work is running now.
    public var inFlight = 0
    /// Requests admitted but waiting for a free slot.
    public var queued = 0
    /// Requests admitted since start (this instance).
    public var admitted = 0
    /// Requests refused with `overloaded`.
    public var rejected = 0
    /// Retries refused by the retry budget.
    public var retriesDenied = 0
    /// Mailbox messages handled since start (this instance).
    public var messagesHandled = 0
}

/// Runs requests: admission control (a bound on in-flight requests, then a bounded queue, then
/// `overloaded`), the retry budget, and one child task per admitted request that runs the
/// interceptors, the transport and the retries (``RequestExecution``). Its mailbox loop never
/// awaits a request's work: results come back as `finished` messages.
///
/// Per request the pipeline handles two messages: `execute` and `finished`.
public actor RequestPipeline: Component {
    public typealias Message = RequestPipelineMessage

    private let execution: RequestExecution
    private let limits: AdmissionLimits
    private var budget: RetryBudget
    private var running: [RequestID: (task: Task<Void, Never>, reply: Reply<HTTPResponse>)] = [:]
    private var waiting = RequestQueue()
    private var stats = PipelineStats()

    init(execution: RequestExecution, limits: AdmissionLimits, budget: RetryBudget) {
        self.execution = execution
        self.limits = limits
        self.budget = budget
    }

    public func handle(_ message: Message) {
        stats.messagesHandled += 1
        switch message {
        case .execute(let pending):
            admit(pending)
        case .finished(let id):
            running[id] = nil
            startWaiting()
        case .cancel(let id):
            // The caller was already answered `cancelled`; free the request's place.
            if let request = running[id] {
                request.task.cancel()
            } else {
                waiting.remove(id)
            }
        case .retryPermit(let reply):
            let granted = budget.withdraw()
            if !granted { stats.retriesDenied += 1 }
            reply.succeed(granted)
        case .stats(let reply):
            var snapshot = stats
            snapshot.inFlight = running.count
            snapshot.queued = waiting.count
            reply.succeed(snapshot)
        }
    }

    private func admit(_ pending: PendingRequest) {
        guard !pending.reply.isAnswered else { return }
        let canRun = running.count < limits.maxConcurrentRequests
        guard canRun || waiting.count < limits.maxQueuedRequests else {
            stats.rejected += 1
            execution.reject(pending, with: .overloaded)
            return
        }
        budget.deposit()
        stats.admitted += 1
        if canRun { start(pending) } else { waiting.append(pending) }
    }

    private func startWaiting() {
        while running.count < limits.maxConcurrentRequests, let next = waiting.popFirst() {
            if next.reply.isAnswered { continue }   // cancelled before its `cancel` arrived
            start(next)
        }
    }

    private func start(_ pending: PendingRequest) {
        let execution = self.execution
        let task = Task.detached { await execution.run(pending) }
        running[pending.id] = (task, pending.reply)
    }

    /// This instance is gone (shut down, or failed and replaced): its running requests are
    /// answered as its queued ones are (`componentUnavailable` once the mailbox is closed,
    /// `componentRestarted` otherwise) and their work is cancelled, so nothing outlives it.
    deinit {
        for request in running.values {
            request.reply.fail(RuntimeError.replyDropped)
            request.task.cancel()
        }
    }
}

/// How many requests the pipeline runs and holds at once.
struct AdmissionLimits: Sendable {
    var maxConcurrentRequests: Int
    var maxQueuedRequests: Int
}

/// A FIFO of waiting requests: amortised O(1) append and pop; removal by id (a cancelled
/// request) leaves a hole that pops skip.
struct RequestQueue {
    private var items: [PendingRequest?] = []
    private var head = 0
    /// Requests waiting (holes excluded).
    private(set) var count = 0

    mutating func append(_ item: PendingRequest) {
        items.append(item)
        count += 1
    }

    mutating func popFirst() -> PendingRequest? {
        while head < items.count {
            let item = items[head]
            items[head] = nil
            head += 1
            if head >= 64, head * 2 >= items.count {
                items.removeFirst(head)
                head = 0
            }
            if let item {
                count -= 1
                return item
            }
        }
        return nil
    }

    mutating func remove(_ id: RequestID) {
        guard let index = items[head...].firstIndex(where: { $0?.id == id }) else { return }
        items[index] = nil
        count -= 1
    }
}
