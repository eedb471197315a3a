/// Hedged requests ("The Tail at Scale"): when an attempt of a repeatable request has not
/// answered after ``delay``, a second one goes out to the same origin; the first good answer
/// (a response below 500) wins and the other is cancelled, down to the transport.
///
/// Only requests that are safe to send twice are hedged: GET, HEAD, OPTIONS, PUT and DELETE, or
/// a request with an `Idempotency-Key` header; never a streamed call or a WebSocket's handshake.
/// Off by default: set ``APIClient/Configuration/hedging`` for a client, or
/// ``RequestOptions/hedging`` for a call (``disabled`` turns it off for that call). Each hedge
/// takes a permit from the hedge ``budget`` and from the client's ``RetryBudget``, and an
/// admission slot of its own while it runs: it is sent only if a slot is free at once
/// (``PipelineStats/hedgesRefused`` counts those that were not).
public struct HedgingPolicy: Sendable, Equatable {
    /// When a hedge goes out.
    public enum Delay: Sendable, Equatable {
        /// A fixed time after the attempt started.
        case fixed(Duration)
        /// Just past the `percentile` (0 to 1, e.g. 0.9) of the origin's last `window` answered
        /// attempts' latencies, so an attempt as quick as the percentile is not hedged;
        /// `fallback` until `minimumSamples` of them are known.
        case percentile(Double, window: Int = 100, minimumSamples: Int = 20, fallback: Duration)
    }

    /// When a hedge goes out. Default: the origin's p90, 100 ms until 20 latencies are known.
    public var delay: Delay
    /// The most hedges of one attempt, each a ``delay`` after the one before. Default 1.
    public var maxExtraAttempts: Int
    /// The cap on hedges across the client's calls, the token bucket retries use: every hedgeable
    /// call deposits `ratio` of a hedge, every hedge withdraws one. Default ratio 0.05, reserve
    /// 2, capacity 10 (at most 5 % of calls hedged once the reserve is spent). The client keeps
    /// one budget: its own policy's, or the first call's policy's when it has none.
    public var budget: RetryBudget
    /// Whether calls are hedged at all; `false` only in ``disabled``.
    public var isEnabled: Bool

    /// Creates a policy; every parameter has the default documented on its property.
    public init(
        delay: Delay = .percentile(0.9, fallback: .milliseconds(100)), maxExtraAttempts: Int = 1,
        budget: RetryBudget = RetryBudget(ratio: 0.05, reserve: 2, capacity: 10)
    ) {
        self.delay = delay
        self.maxExtraAttempts = max(0, maxExtraAttempts)
        self.budget = budget
        isEnabled = true
    }

    /// No hedging: for a call (``RequestOptions/hedging``) on a client that has a policy.
    public static let disabled: HedgingPolicy = {
        var policy = HedgingPolicy()
        policy.isEnabled = false
        return policy
    }()
}
