import Courier
import Foundation

/// Runs an async operation at a fixed rate (open loop, as wrk2 does): a pacing thread
/// (``FixedRateSchedule``) starts each request in a task of its own when it is due, whether or
/// not the ones before it have been answered, as a service's handlers start on requests that
/// arrive; each latency is counted from the due time.
enum FixedRateLoad {
    /// The run's running totals, updated by each request's task as it ends.
    private struct Progress: Sendable {
        var histogram = LatencyHistogram()
        var failures = 0
        var finished = 0
        var inFlight = 0
        var peakInFlight = 0
        var lastEnd: UInt64 = 0
        /// Resumed by the last request to end.
        var waiter: CheckedContinuation<Void, Never>?
    }

    /// Runs `operation` `rate` times a second for `duration`, the first due at `start`
    /// (``MonotonicTime``; by default a millisecond from now).
    static func run(
        rate: Double, duration: Duration, start: UInt64? = nil, _ operation: @escaping @Sendable () async throws -> Void
    ) async -> FixedRateMeasurement {
        let progress = Locked(Progress())
        let usageBefore = ProcessUsage.now
        let schedule = FixedRateSchedule(rate: rate, duration: duration, start: start ?? MonotonicTime.now + 1_000_000)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            guard schedule.count > 0 else { return continuation.resume() }
            progress.withLock { $0.waiter = continuation }
            schedule.pace { due in
                progress.withLock { progress in
                    progress.inFlight += 1
                    progress.peakInFlight = max(progress.peakInFlight, progress.inFlight)
                }
                Task {
                    var failed = false
                    do { try await operation() } catch { failed = true }
                    let end = MonotonicTime.now
                    let waiter = progress.withLock { progress -> CheckedContinuation<Void, Never>? in
                        if failed {
                            progress.failures += 1
                        } else {
                            progress.histogram.record(end > due ? end - due : 0)
                        }
                        progress.inFlight -= 1
                        progress.finished += 1
                        progress.lastEnd = max(progress.lastEnd, end)
                        guard progress.finished == schedule.count else { return nil }
                        defer { progress.waiter = nil }
                        return progress.waiter
                    }
                    waiter?.resume()
                }
            }
        }
        let usage = ProcessUsage.now - usageBefore
        let totals = progress.withLock { $0 }
        return FixedRateMeasurement(
            rate: rate, requests: schedule.count, failures: totals.failures, histogram: totals.histogram,
            elapsedNanos: totals.lastEnd > schedule.start ? totals.lastEnd - schedule.start : 0, usage: usage,
            peakInFlight: totals.peakInFlight)
    }
}
