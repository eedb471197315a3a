/// The sliding window of a ``CircuitBreaker``: the last `n` outcomes (a ring), or the outcomes
/// of the last span of time in one-second buckets (older buckets dropped as time moves on).
struct OutcomeWindow: Sendable {
    /// How many calls, failures and slow calls.
    struct Counts: Sendable, Equatable {
        var calls = 0
        var failures = 0
        var slow = 0

        mutating func add(failed: Bool, slow isSlow: Bool) {
            calls += 1
            if failed { failures += 1 }
            if isSlow { slow += 1 }
        }

        mutating func remove(_ other: Counts) {
            calls -= other.calls
            failures -= other.failures
            slow -= other.slow
        }
    }

    private enum Storage: Sendable {
        /// The last outcomes, oldest overwritten: `ring[next]` is the next to go.
        case calls(ring: [Counts], next: Int)
        /// One bucket per second of the span, by second number modulo the count.
        case time(buckets: [(second: Int64, counts: Counts)])
    }

    private var storage: Storage
    private var total = Counts()

    init(_ window: CircuitBreaker.Configuration.Window) {
        switch window {
        case .calls(let size):
            storage = .calls(ring: Array(repeating: Counts(), count: max(1, size)), next: 0)
        case .time(let span):
            let seconds = max(1, Int(span.components.seconds))
            storage = .time(buckets: Array(repeating: (-1, Counts()), count: seconds))
        }
    }

    mutating func add(failed: Bool, slow: Bool, at now: Duration) {
        var one = Counts()
        one.add(failed: failed, slow: slow)
        switch storage {
        case .calls(var ring, let next):
            total.remove(ring[next])
            ring[next] = one
            storage = .calls(ring: ring, next: (next + 1) % ring.count)
        case .time:
            expire(at: now)
            guard case .time(var buckets) = storage else { return }
            let second = now.components.seconds
            let index = Int(second % Int64(buckets.count))
            if buckets[index].second != second { buckets[index] = (second, Counts()) }
            buckets[index].counts.add(failed: failed, slow: slow)
            storage = .time(buckets: buckets)
        }
        total.add(failed: failed, slow: slow)
    }

    /// The counts of the outcomes still in the window at `now`.
    mutating func counts(at now: Duration) -> Counts {
        expire(at: now)
        return total
    }

    /// Drops the buckets of seconds that have left the span.
    private mutating func expire(at now: Duration) {
        guard case .time(var buckets) = storage else { return }
        let second = now.components.seconds
        for index in buckets.indices where buckets[index].second >= 0 && buckets[index].second <= second - Int64(buckets.count) {
            total.remove(buckets[index].counts)
            buckets[index] = (-1, Counts())
        }
        storage = .time(buckets: buckets)
    }
}
