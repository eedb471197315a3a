#if canImport(CCurl)
import CCurl
import Courier
import Foundation

extension RawCurl {
    /// The floor at a fixed rate (open loop): a pacing thread (``FixedRateSchedule``) queues each
    /// request's due time and wakes the loop's thread, which starts a transfer for it (an idle
    /// handle, or a new one) as soon as fewer than `maxInFlight` run, the rest waiting in
    /// arrival order, and counts its latency from its due time.
    static func measure(_ target: Target, rate: Double, duration: Duration, maxInFlight: Int) async -> FixedRateMeasurement {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: run(target, rate: rate, duration: duration, maxInFlight: maxInFlight))
            }
            thread.start()
        }
    }

    private static func run(_ target: Target, rate: Double, duration: Duration, maxInFlight: Int) -> FixedRateMeasurement {
        let multi = makeMulti(target, maxConnections: maxInFlight)
        let decoder = JSONDecoder()
        let list = headerList(target)
        var transfers: [Transfer] = []
        var idle: [Transfer] = []
        // Filled by the pacing thread, emptied by this one.
        let dueTimes = Locked([UInt64]())
        // curl_multi_wakeup is the one call libcurl allows from another thread.
        nonisolated(unsafe) let wakeable = multi
        var histogram = LatencyHistogram()
        var failures = 0, finished = 0, lastEnd: UInt64 = 0
        let usageBefore = ProcessUsage.now
        let schedule = FixedRateSchedule(rate: rate, duration: duration, start: MonotonicTime.now + 1_000_000)
        let pacerDone = schedule.pace { due in
            dueTimes.withLock { $0.append(due) }
            curl_multi_wakeup(wakeable)
        }
        var running: Int32 = 0
        var taken: [UInt64] = []
        // Due, not started: more than maxInFlight were due at once.
        var waiting: [UInt64] = [], nextWaiting = 0
        var inFlight = 0, peakInFlight = 0
        while finished < schedule.count {
            dueTimes.withLock { swap(&$0, &taken) }
            waiting += taken
            taken.removeAll(keepingCapacity: true)
            peakInFlight = max(peakInFlight, inFlight + waiting.count - nextWaiting)
            while inFlight < maxInFlight, nextWaiting < waiting.count {
                let transfer = idle.popLast() ?? {
                    let new = Transfer(target, headers: list)
                    transfers.append(new)
                    return new
                }()
                transfer.body.removeAll(keepingCapacity: true)
                transfer.due = waiting[nextWaiting]
                nextWaiting += 1
                inFlight += 1
                curl_multi_add_handle(multi, transfer.easy)
            }
            if nextWaiting == waiting.count {
                waiting.removeAll(keepingCapacity: true)
                nextWaiting = 0
            }
            curl_multi_perform(multi, &running)
            var remaining: Int32 = 0
            while let message = curl_multi_info_read(multi, &remaining) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                let transfer = Transfer.of(easy)
                let end = MonotonicTime.now
                if succeeded(message, transfer, decoder) {
                    histogram.record(end > transfer.due ? end - transfer.due : 0)
                } else {
                    failures += 1
                }
                lastEnd = max(lastEnd, end)
                finished += 1
                inFlight -= 1
                curl_multi_remove_handle(multi, easy)
                idle.append(transfer)
            }
            let canStart = inFlight < maxInFlight && nextWaiting < waiting.count
            if finished < schedule.count, !canStart { curl_multi_poll(multi, nil, 0, 1000, nil) }
        }
        let usage = ProcessUsage.now - usageBefore
        // The pacer's last wake-up must not reach a freed multi handle.
        pacerDone.wait()
        curl_multi_cleanup(multi)
        for transfer in transfers { transfer.cleanup() }
        curl_slist_free_all(list)
        return FixedRateMeasurement(
            rate: rate, requests: schedule.count, failures: failures, histogram: histogram,
            elapsedNanos: lastEnd > schedule.start ? lastEnd - schedule.start : 0, usage: usage,
            peakInFlight: peakInFlight)
    }
}
#endif
