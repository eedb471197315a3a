/// One admission limit and the calls waiting behind it, in one queue per ``RequestPriority``:
/// the client's fixed limit (one lane for every call), or one origin's adaptive limit
/// (``ConcurrencyLimitPolicy``, one lane per origin). A pure value the ``RequestPipeline``
/// drives: it decides who runs, who waits and who is shed; the pipeline answers the callers.
///
/// Waiting calls start highest priority first, in arrival order within one priority. When the
/// queue is full, a newcomer takes the place of the newest waiting call of the lowest priority
/// below its own, which is shed; with nothing lower waiting, the newcomer is refused.
struct AdmissionLane {
    /// Where the lane's limit comes from.
    enum Limit: Sendable, Equatable {
        case fixed(Int)
        case adaptive(AdaptiveLimit)
    }

    /// What became of a call that arrived.
    enum Arrival {
        /// A slot is free: start it.
        case runs
        /// It waits; `shed`, when the queue was full, is the waiting call it replaced, to be
        /// refused with ``NetworkError/overloaded``.
        case waits(shed: WaitingRequest?)
        /// The queue is full of calls as urgent as it or more: refuse it.
        case refused
    }

    private(set) var source: Limit
    /// The most calls waiting in all queues together.
    let maxQueued: Int
    /// Calls holding a slot of this lane.
    var running = 0
    /// Indexed by ``RequestPriority/rawValue``.
    private var queues = Array(repeating: RequestQueue(), count: RequestPriority.allCases.count)

    init(_ source: Limit, maxQueued: Int) {
        self.source = source
        self.maxQueued = maxQueued
    }

    /// The calls that may hold a slot now.
    var limit: Int {
        switch source {
        case .fixed(let limit): limit
        case .adaptive(let adaptive): adaptive.limit
        }
    }

    /// Calls waiting for a slot.
    var waiting: Int { queues.reduce(0) { $0 + $1.count } }

    /// Whether a newcomer would run at once: a slot is free and no call waits for one.
    var hasFreeSlot: Bool { running < limit && waiting == 0 }

    /// Takes in `request`: it runs, waits (perhaps in place of a less urgent one), or is refused.
    mutating func arrive(_ request: WaitingRequest) -> Arrival {
        if hasFreeSlot { return .runs }
        if waiting < maxQueued {
            queues[request.priority.rawValue].append(request)
            return .waits(shed: nil)
        }
        for lower in RequestPriority.allCases where lower < request.priority {
            if let shed = queues[lower.rawValue].popLast() {
                queues[request.priority.rawValue].append(request)
                return .waits(shed: shed)
            }
        }
        return .refused
    }

    /// The waiting call to start next, if a slot is free: the oldest of the highest priority.
    mutating func next() -> WaitingRequest? {
        guard running < limit else { return nil }
        for priority in RequestPriority.allCases.reversed() {
            if let request = queues[priority.rawValue].popFirst() { return request }
        }
        return nil
    }

    /// Removes waiting request `id` (its caller left); returns whether it waited here.
    mutating func remove(_ id: RequestID) -> Bool {
        for index in queues.indices where queues[index].remove(id) { return true }
        return false
    }

    /// Removes the waiting requests whose deadline is at or before `now`, with the earliest
    /// deadline of those left.
    mutating func removeExpired(at now: Duration) -> (expired: [WaitingRequest], next: Duration?) {
        var expired: [WaitingRequest] = []
        var next: Duration?
        for index in queues.indices {
            let (gone, left) = queues[index].removeExpired(at: now)
            expired += gone
            if let left { next = min(next ?? left, left) }
        }
        return (expired, next)
    }

    /// Feeds a finished call's sample to an adaptive limit (a fixed one ignores it); returns the
    /// new limit when it changed.
    mutating func record(_ sample: LatencySample, inflight: Int) -> Int? {
        guard case .adaptive(var adaptive) = source else { return nil }
        let before = adaptive.limit
        adaptive.record(rtt: sample.rtt, inflight: inflight, dropped: sample.dropped)
        source = .adaptive(adaptive)
        return adaptive.limit == before ? nil : adaptive.limit
    }
}
