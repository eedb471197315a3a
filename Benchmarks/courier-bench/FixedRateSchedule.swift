import Foundation

/// When each request of an open-loop run is due: request `i` at `start + i / rate`, whatever
/// happened to the ones before it (as wrk2 schedules them). A request's latency is counted from
/// this time, not from when it was sent, so a stall is charged to every request it held back
/// (coordinated omission corrected).
struct FixedRateSchedule: Sendable {
    /// The first request's due time, in ``MonotonicTime`` nanoseconds.
    let start: UInt64
    /// Requests per second.
    let rate: Double
    /// How many requests the run sends.
    let count: Int

    /// A run of `duration` at `rate` starting at `start`.
    init(rate: Double, duration: Duration, start: UInt64) {
        self.start = start
        self.rate = rate
        count = Swift.max(0, Int((rate * duration.inSeconds).rounded()))
    }

    /// When request `index` is due.
    func due(_ index: Int) -> UInt64 {
        start + UInt64((Double(index) * 1e9 / rate).rounded())
    }

    /// When the last request is due plus one interval: the run's nominal end.
    var end: UInt64 { due(count) }

    /// Calls `launch` with each request's due time, once it is due, in order, from a thread of
    /// its own that sleeps on the monotonic clock between them (never blocking Swift's pool);
    /// requests whose time passed while it slept are launched at once, each with its own due
    /// time. Returns at once, with a semaphore signalled after the last call.
    @discardableResult
    func pace(_ launch: @escaping @Sendable (_ due: UInt64) -> Void) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            var next = 0
            while next < count {
                let now = MonotonicTime.now
                while next < count, due(next) <= now {
                    launch(due(next))
                    next += 1
                }
                if next < count { MonotonicTime.sleep(until: due(next)) }
            }
            done.signal()
        }
        thread.name = "courier-bench.pacer"
        thread.start()
        return done
    }
}
