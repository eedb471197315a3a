/// The sliding window of a ``CircuitBreaker``: the last `n` outcomes (a ring), or the outcomes
/// of the last span of time in one-second buckets (a bucket is emptied when its second comes
/// round again).
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

    /// One slot per call (count window) or per second (time window).
    private var slots: [Counts]
    private let countsTime: Bool
    /// The count window's next slot to overwrite.
    private var next = 0
    /// The time window's latest second seen; the slots of the seconds after it are stale.
    private var latestSecond: Int64?
    private var total = Counts()

    init(_ window: CircuitBreaker.Configuration.Window) {
        switch window {
        case .calls(let size):
            slots = Array(repeating: Counts(), count: max(1, size))
            countsTime = false
        case .time(let span):
            slots = Array(repeating: Counts(), count: Int(max(1, span.components.seconds)))
            countsTime = true
        }
    }

    mutating func add(failed: Bool, slow: Bool, at now: Duration) {
        let index: Int
        if countsTime {
            advance(to: now)
            index = Int(now.components.seconds % Int64(slots.count))
        } else {
            index = next
            total.remove(slots[index])
            slots[index] = Counts()
            next = (next + 1) % slots.count
        }
        slots[index].add(failed: failed, slow: slow)
        total.add(failed: failed, slow: slow)
    }

    /// The counts of the outcomes still in the window at `now`.
    mutating func counts(at now: Duration) -> Counts {
        if countsTime { advance(to: now) }
        return total
    }

    /// Empties the slots of the seconds from the latest one seen up to `now`'s (at most all).
    private mutating func advance(to now: Duration) {
        let second = now.components.seconds
        guard let latest = latestSecond else {
            latestSecond = second
            return
        }
        guard second > latest else { return }
        for passed in (latest + 1)...min(second, latest + Int64(slots.count)) {
            let index = Int(passed % Int64(slots.count))
            total.remove(slots[index])
            slots[index] = Counts()
        }
        latestSecond = second
    }
}
