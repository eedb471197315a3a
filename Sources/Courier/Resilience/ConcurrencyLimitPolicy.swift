/// An adaptive concurrency limit per origin (``APIClient/Configuration/Limits/adaptive``): each
/// origin's limit of calls in flight follows the latency its calls measure, as TCP Vegas does
/// (Netflix concurrency-limits' `VegasLimit`): the queue the origin builds up is estimated as
/// `limit × (1 − rttNoLoad / rtt)`; below ``alpha`` the limit grows, above ``beta`` it shrinks,
/// and a dropped call (timed out, or refused by the server as overloaded) shrinks it too. The
/// no-load latency is the least latency seen, measured again every ``probeMultiplier`` × limit
/// calls, so the limit recovers when the origin's baseline latency changes: for that probe the
/// limit drops to ``minLimit`` for three calls, so that the origin's queue drains and they
/// measure its latency without one (as BBR's ProbeRTT does).
///
/// The scales below are multiplied by `max(1, log10(limit))`, as in `VegasLimit`, so a large
/// limit moves by more than a small one.
public struct ConcurrencyLimitPolicy: Sendable, Equatable {
    /// The limit an origin starts with. Default 20.
    public var initialLimit: Int
    /// The least the limit falls to. Default 1.
    public var minLimit: Int
    /// The most the limit grows to. Default 200.
    public var maxLimit: Int
    /// Below `alpha × log10(limit)` calls queued at the origin, the limit grows by
    /// `log10(limit)`. Default 2.
    public var alpha: Double
    /// Above `beta × log10(limit)` calls queued at the origin, the limit shrinks by
    /// `log10(limit)`; at or below `log10(limit)` queued it grows by `beta × log10(limit)`.
    /// Default 4.
    public var beta: Double
    /// The no-load latency is measured again every `probeMultiplier × limit` calls. Default 300.
    public var probeMultiplier: Int

    /// Creates a policy. The defaults: start at 20, bounds 1…200, alpha 2 and beta 4 (Linux's
    /// TCP Vegas; `VegasLimit` has 3 and 6), a probe every 300 × limit calls (a probe holds the
    /// limit at `minLimit` for a few round trips, and calls that arrive meanwhile wait).
    public init(
        initialLimit: Int = 20, minLimit: Int = 1, maxLimit: Int = 200,
        alpha: Double = 2, beta: Double = 4, probeMultiplier: Int = 300
    ) {
        self.minLimit = max(1, minLimit)
        self.maxLimit = max(self.minLimit, maxLimit)
        self.initialLimit = min(max(initialLimit, self.minLimit), self.maxLimit)
        self.alpha = alpha
        self.beta = max(alpha, beta)
        self.probeMultiplier = max(1, probeMultiplier)
    }
}
