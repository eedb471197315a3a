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
    private var running: [RequestID: Task<Void, Never>] = [:]
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
            // A queued request's reply is already answered: it is skipped when dequeued.
            running[id]?.cancel()
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
        if running.count < limits.maxConcurrentRequests {
            budget.deposit()
            stats.admitted += 1
            start(pending)
        } else if waiting.count < limits.maxQueuedRequests {
            budget.deposit()
            stats.admitted += 1
            waiting.append(pending)
        } else {
            stats.rejected += 1
            execution.reject(pending, with: .overloaded)
        }
    }

    private func startWaiting() {
        while running.count < limits.maxConcurrentRequests, let next = waiting.popFirst() {
            if next.reply.isAnswered { continue }
            start(next)
        }
    }

    private func start(_ pending: PendingRequest) {
        let execution = self.execution
        running[pending.id] = Task.detached {
            await execution.run(pending)
        }
    }
}

/// How many requests the pipeline runs and holds at once.
struct AdmissionLimits: Sendable {
    var maxConcurrentRequests: Int
    var maxQueuedRequests: Int
}

/// A FIFO of waiting requests: amortised O(1) append and pop.
struct RequestQueue {
    private var items: [PendingRequest?] = []
    private var head = 0

    var count: Int { items.count - head }

    mutating func append(_ item: PendingRequest) { items.append(item) }

    mutating func popFirst() -> PendingRequest? {
        guard head < items.count else { return nil }
        let item = items[head]
        items[head] = nil
        head += 1
        if head >= 64, head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return item
    }
}
