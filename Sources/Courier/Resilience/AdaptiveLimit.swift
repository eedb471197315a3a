import Foundation

/// One origin's adaptive concurrency limit (``ConcurrencyLimitPolicy``, TCP Vegas): a pure value
/// fed with one sample per finished call (its latency, the calls in flight when it started, and
/// whether it was dropped), which returns the limit to hold from then on.
struct AdaptiveLimit: Sendable, Equatable {
    let policy: ConcurrencyLimitPolicy
    /// The limit as a real number, so that steps smaller than one call add up.
    private(set) var estimate: Double
    /// The least latency seen since the last probe: the origin's latency without a queue.
    private(set) var rttNoLoad: Duration?
    /// Samples since the no-load latency was last taken from a sample whatever its value.
    private var samplesSinceProbe = 0

    init(policy: ConcurrencyLimitPolicy) {
        self.policy = policy
        estimate = Double(policy.initialLimit)
    }

    /// The calls that may be in flight now.
    var limit: Int { Int(estimate) }

    /// Feeds the sample of one finished call: `rtt`, how long it ran; `inflight`, the calls in
    /// flight when it started (itself included); `dropped`, whether it timed out or the origin
    /// refused it as overloaded. Returns the new limit.
    @discardableResult
    mutating func record(rtt: Duration, inflight: Int, dropped: Bool) -> Int {
        guard rtt > .zero else { return limit }
        samplesSinceProbe += 1
        // Periodically forget the least latency: a baseline that rose (a slower replica, a
        // longer route) would otherwise read as a queue forever and hold the limit down.
        if Double(samplesSinceProbe) >= Double(policy.probeMultiplier) * estimate {
            samplesSinceProbe = 0
            rttNoLoad = rtt
            return limit
        }
        guard let noLoad = rttNoLoad, rtt >= noLoad else {
            rttNoLoad = rtt
            return limit
        }
        let scale = max(1, log10(estimate))
        let next: Double
        if dropped {
            next = estimate - scale
        } else if inflight * 2 < limit {
            // Far below the limit the latency says nothing about it: no upward drift.
            return limit
        } else {
            let queued = (estimate * (1 - noLoad.inSeconds / rtt.inSeconds)).rounded(.up)
            if queued <= scale {
                next = estimate + policy.beta * scale
            } else if queued < policy.alpha * scale {
                next = estimate + scale
            } else if queued > policy.beta * scale {
                next = estimate - scale
            } else {
                return limit
            }
        }
        estimate = min(Double(policy.maxLimit), max(Double(policy.minLimit), next))
        return limit
    }
}
