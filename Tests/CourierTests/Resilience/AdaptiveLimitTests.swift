import Testing

@testable import Courier

/// The Vegas limit on fed samples: no clock, no tasks; each sample is one finished call.
@Suite struct AdaptiveLimitTests {
    private let policy = ConcurrencyLimitPolicy(initialLimit: 20, minLimit: 5, maxLimit: 60, probeMultiplier: 1_000)

    /// Feeds `count` samples of `rtt` with the limit's calls all in flight.
    private func feed(_ limit: inout AdaptiveLimit, rtt: Duration, count: Int, dropped: Bool = false) -> [Int] {
        (0..<count).map { _ in limit.record(rtt: rtt, inflight: limit.limit, dropped: dropped) }
    }

    @Test("at the no-load latency the limit grows, up to its bound and no further")
    func growsUnderLowLatency() {
        var limit = AdaptiveLimit(policy: policy)
        _ = limit.record(rtt: .milliseconds(10), inflight: 20, dropped: false)   // the no-load latency
        let seen = feed(&limit, rtt: .milliseconds(10), count: 50)
        #expect(seen.first! > 20)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(seen.last == policy.maxLimit)
        #expect(seen.allSatisfy { $0 <= policy.maxLimit })
    }

    @Test("as latency rises over the no-load latency the limit shrinks, down to its bound and no further")
    func shrinksAsLatencyRises() {
        let policy = ConcurrencyLimitPolicy(initialLimit: 40, minLimit: 8, maxLimit: 60, probeMultiplier: 1_000)
        var limit = AdaptiveLimit(policy: policy)
        _ = limit.record(rtt: .milliseconds(10), inflight: 40, dropped: false)
        // Ten times the no-load latency: nine tenths of the limit are queueing, above beta.
        let seen = feed(&limit, rtt: .milliseconds(100), count: 100)
        #expect(seen.first! < 40)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 >= $1 })
        #expect(seen.last == policy.minLimit)
        #expect(seen.allSatisfy { $0 >= policy.minLimit })
    }

    @Test("between alpha and beta the limit holds")
    func holdsInTheSweetSpot() {
        var limit = AdaptiveLimit(policy: ConcurrencyLimitPolicy(initialLimit: 100, maxLimit: 200, probeMultiplier: 1_000))
        _ = limit.record(rtt: .milliseconds(100), inflight: 100, dropped: false)
        // log10(100) = 2: alpha 4, beta 8; 100 × (1 − 100/106) ≈ 5.7, queued 6.
        #expect(feed(&limit, rtt: .milliseconds(106), count: 20).allSatisfy { $0 == 100 })
    }

    @Test("a dropped call shrinks the limit whatever its latency")
    func dropShrinks() {
        var limit = AdaptiveLimit(policy: policy)
        _ = limit.record(rtt: .milliseconds(10), inflight: 20, dropped: false)
        #expect(limit.record(rtt: .milliseconds(10), inflight: 20, dropped: true) < 20)
        let seen = feed(&limit, rtt: .milliseconds(10), count: 50, dropped: true)
        #expect(seen.last == policy.minLimit)
        #expect(seen.allSatisfy { $0 >= policy.minLimit })
    }

    @Test("far below the limit the latency does not make it drift upward")
    func noUpwardDriftWhenIdle() {
        var limit = AdaptiveLimit(policy: policy)
        _ = limit.record(rtt: .milliseconds(10), inflight: 1, dropped: false)
        for _ in 0..<50 { #expect(limit.record(rtt: .milliseconds(10), inflight: 3, dropped: false) == 20) }
    }

    @Test("the no-load latency is measured again periodically, so a higher baseline stops reading as a queue")
    func noLoadLatencyIsProbedAgain() {
        var limit = AdaptiveLimit(policy: ConcurrencyLimitPolicy(initialLimit: 10, minLimit: 5, maxLimit: 60, probeMultiplier: 2))
        _ = limit.record(rtt: .milliseconds(10), inflight: 10, dropped: false)
        // The origin's baseline moves to 30 ms: at first that reads as a queue and the limit
        // falls; once the probe takes 30 ms as the no-load latency, the limit grows again.
        let seen = feed(&limit, rtt: .milliseconds(30), count: 60)
        #expect(seen.min()! < 10)
        #expect(limit.rttNoLoad == .milliseconds(30))
        #expect(seen.last! > seen.min()!)
        #expect(seen.allSatisfy { (5...60).contains($0) })
    }

    @Test("a probe runs at the least limit, ignores calls started before it, and takes the unloaded latency as the baseline")
    func probeDrainsTheQueue() {
        var limit = AdaptiveLimit(policy: ConcurrencyLimitPolicy(initialLimit: 10, minLimit: 1, maxLimit: 60, probeMultiplier: 1))
        _ = limit.record(rtt: .milliseconds(1), inflight: 10, dropped: false)
        // Loaded samples until the probe is due: the limit shrinks, then the probe starts.
        var samples = 1
        while !limit.isProbing, samples < 100 {
            _ = limit.record(rtt: .milliseconds(3), inflight: limit.limit, dropped: false)
            samples += 1
        }
        #expect(limit.isProbing)
        let estimate = Int(limit.estimate)
        #expect(limit.limit == 1)
        // Calls that started before the probe still come back loaded: not samples of it.
        for _ in 0..<5 { #expect(limit.record(rtt: .milliseconds(3), inflight: 6, dropped: false) == 1) }
        #expect(limit.isProbing)
        for rtt in [1.3, 1.1, 1.2] { _ = limit.record(rtt: .milliseconds(rtt), inflight: 1, dropped: false) }
        #expect(!limit.isProbing)
        #expect(limit.rttNoLoad == .milliseconds(1.1))
        #expect(limit.limit == estimate)
    }

    @Test("bounds given out of order are put in order")
    func policyBounds() {
        let policy = ConcurrencyLimitPolicy(initialLimit: 500, minLimit: 0, maxLimit: 50)
        #expect(policy.minLimit == 1 && policy.maxLimit == 50 && policy.initialLimit == 50)
    }
}
