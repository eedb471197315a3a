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
    /// Samples since the no-load latency was last measured.
    private var samplesSinceProbe = 0
    /// While probing: the samples still to take at the probe's limit, and the least latency
    /// they measured so far.
    private var probe: Probe?

    private struct Probe: Sendable, Equatable {
        var samplesLeft = AdaptiveLimit.probeSamples
        var least: Duration?
    }

    /// Samples a probe takes, each from a call that started with at most ``probeLimit`` in flight.
    static let probeSamples = 3

    init(policy: ConcurrencyLimitPolicy) {
        self.policy = policy
        estimate = Double(policy.initialLimit)
    }

    /// The calls that may be in flight now: the estimate, or while probing ``probeLimit``.
    var limit: Int { probe == nil ? Int(estimate) : probeLimit }

    /// The limit while probing: the least allowed, so that the origin's queue drains and the
    /// probe's calls measure its latency without one.
    var probeLimit: Int { policy.minLimit }

    /// Whether the no-load latency is being measured again (the limit is ``probeLimit``).
    var isProbing: Bool { probe != nil }

    /// Feeds the sample of one finished call: `rtt`, how long it ran; `inflight`, the calls in
    /// flight when it started (itself included); `dropped`, whether it timed out or the origin
    /// refused it as overloaded. Returns the new limit.
    @discardableResult
    mutating func record(rtt: Duration, inflight: Int, dropped: Bool) -> Int {
        guard rtt > .zero else { return limit }
        if var probing = probe {
            // Calls started before the probe ran with the origin's queue: they say nothing.
            guard inflight <= probeLimit else { return limit }
            probing.least = min(probing.least ?? rtt, rtt)
            probing.samplesLeft -= 1
            probe = probing
            if probing.samplesLeft == 0, let least = probing.least {
                rttNoLoad = least
                probe = nil
            }
            return limit
        }
        samplesSinceProbe += 1
        // Periodically measure the least latency again (a baseline that rose, a slower replica
        // or a longer route, would otherwise read as a queue forever and hold the limit down),
        // at the probe's limit: a sample taken at the usual limit includes the queue it keeps
        // at the origin, and taken as the baseline it would let the limit climb with the queue.
        if Double(samplesSinceProbe) >= Double(policy.probeMultiplier) * estimate {
            samplesSinceProbe = 0
            probe = Probe()
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
