/// When a client stops calling an origin that keeps failing, as resilience4j's circuit breaker
/// does: one breaker per origin (scheme, host and port), closed, open or half-open
/// (``CircuitBreakerState``).
///
/// Closed, every attempt goes and its outcome is counted in a sliding ``window``. Once the window
/// holds ``minimumCalls`` outcomes and the share of failures reaches ``failureRateThreshold`` (or
/// the share of slow calls reaches ``slowCallRateThreshold``), the breaker opens: for
/// ``openDuration`` (plus up to ``openJitter`` of it, at random) every attempt fails at once with
/// ``NetworkError/circuitOpen(origin:retryAfter:)`` and nothing is sent. Then it turns half-open:
/// ``halfOpenProbes`` attempts go; if their rates are under the thresholds it closes, else it
/// opens again.
///
/// A failure is a 5xx, a timeout, a connection not made or lost, or a response that broke HTTP;
/// any other answer (a 4xx included) is a success, and a cancelled attempt is not counted.
/// Off by default: set ``APIClient/Configuration/circuitBreaker`` for a client, or
/// ``RequestOptions/circuitBreaker`` for a call (``disabled`` turns it off for that call).
/// Calls with the same policy to the same origin share a breaker; a call with a policy of its
/// own has its own breaker for that origin.
public struct CircuitBreakerPolicy: Sendable, Hashable {
    /// The outcomes the rates are computed over.
    public enum Window: Sendable, Hashable {
        /// The last `n` attempts.
        case calls(Int)
        /// The attempts of the last span of time, counted in one-second buckets (1 s to 1 h).
        case time(Duration)
    }

    /// Whether the breaker is used at all; `false` only for ``disabled``.
    public var isEnabled: Bool
    /// The sliding window. Default the last 100 attempts.
    public var window: Window
    /// The share of failures (0…1) that opens the breaker. Default 0.5.
    public var failureRateThreshold: Double
    /// The share of slow attempts (0…1) that opens the breaker. Default 1: slowness alone opens
    /// it only when every attempt in the window was slow.
    public var slowCallRateThreshold: Double
    /// An attempt that takes at least this long (to its response; a streamed call's, to its
    /// head) is slow, whatever its outcome. Default 60 s.
    public var slowCallDuration: Duration
    /// No rate is judged over fewer outcomes. Default 10.
    public var minimumCalls: Int
    /// How long an open breaker refuses attempts before it lets probes through. Default 30 s.
    public var openDuration: Duration
    /// Up to this share of ``openDuration`` is added at random to each opening, so that many
    /// clients do not probe together. Default 0.2.
    public var openJitter: Double
    /// How many attempts a half-open breaker lets through; the rest are refused until they
    /// have ended. Default 3.
    public var halfOpenProbes: Int

    /// Creates a policy; every parameter has the default documented on its property.
    public init(
        window: Window = .calls(100),
        failureRateThreshold: Double = 0.5,
        slowCallRateThreshold: Double = 1,
        slowCallDuration: Duration = .seconds(60),
        minimumCalls: Int = 10,
        openDuration: Duration = .seconds(30),
        openJitter: Double = 0.2,
        halfOpenProbes: Int = 3
    ) {
        isEnabled = true
        self.window = window
        self.failureRateThreshold = failureRateThreshold
        self.slowCallRateThreshold = slowCallRateThreshold
        self.slowCallDuration = slowCallDuration
        self.minimumCalls = minimumCalls
        self.openDuration = openDuration
        self.openJitter = openJitter
        self.halfOpenProbes = halfOpenProbes
    }

    /// Every default: the last 100 attempts, 50 % failures or all slow (60 s) over at least 10
    /// opens it for 30 s (+ up to 20 %), 3 probes.
    public static let standard = CircuitBreakerPolicy()

    /// No breaker: for a call (``RequestOptions/circuitBreaker``) on a client that has one.
    public static let disabled: CircuitBreakerPolicy = {
        var policy = CircuitBreakerPolicy()
        policy.isEnabled = false
        return policy
    }()

    /// The state machine's settings.
    var configuration: CircuitBreaker.Configuration {
        var configuration = CircuitBreaker.Configuration()
        configuration.window = switch window {
        case .calls(let count): .calls(count)
        case .time(let span): .time(span)
        }
        configuration.failureRateThreshold = failureRateThreshold
        configuration.slowCallRateThreshold = slowCallRateThreshold
        configuration.slowCallDuration = slowCallDuration
        configuration.minimumCalls = minimumCalls
        configuration.openDuration = openDuration
        configuration.openJitter = openJitter
        configuration.halfOpenProbes = halfOpenProbes
        return configuration
    }
}
