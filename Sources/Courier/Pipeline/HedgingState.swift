/// What the hedging step remembers across calls: the hedge budget and each origin's recent
/// latencies, for a percentile delay.
struct HedgingState: Sendable {
    private var budget: RetryBudget?
    private var latencies: [HTTPOrigin: [Duration]] = [:]
    /// The most origins remembered; past it the table starts again, as a cache would.
    private let capacity: Int

    init(budget: RetryBudget?, capacity: Int = 1_024) {
        self.budget = budget
        self.capacity = capacity
    }

    /// Records a hedgeable call and returns its hedges' delay.
    mutating func begin(_ origin: HTTPOrigin, policy: HedgingPolicy) -> Duration {
        if budget == nil { budget = policy.budget }
        budget?.deposit()
        switch policy.delay {
        case .fixed(let delay):
            return delay
        case .percentile(let percentile, _, let minimumSamples, let fallback):
            let samples = latencies[origin] ?? []
            guard samples.count >= max(1, minimumSamples) else { return fallback }
            let sorted = samples.sorted()
            let index = Int((Double(sorted.count - 1) * min(1, max(0, percentile))).rounded(.up))
            // An attempt as quick as the percentile is on time: only one slower than it is hedged.
            return sorted[index] + .microseconds(1)
        }
    }

    /// Takes a hedge from the budget, if it has one.
    mutating func withdraw() -> Bool {
        budget?.withdraw() ?? false
    }

    /// Gives back a hedge taken from the budget that was not sent.
    mutating func refund() {
        budget?.refund()
    }

    /// Records how long an answered attempt took, keeping the policy's window.
    mutating func record(_ latency: Duration, of origin: HTTPOrigin, policy: HedgingPolicy) {
        guard case .percentile(_, let window, _, _) = policy.delay else { return }
        if latencies[origin] == nil, latencies.count >= capacity { latencies.removeAll() }
        latencies[origin, default: []].append(latency)
        if let count = latencies[origin]?.count, count > max(1, window) { latencies[origin]?.removeFirst(count - max(1, window)) }
    }
}
