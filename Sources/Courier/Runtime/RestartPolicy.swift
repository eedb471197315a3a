/// How failed components are restarted: an intensity limit (at most ``maxRestarts`` restarts
/// within any ``period``; one more failure in that window and the supervisor gives up, stopping
/// everything) and a backoff before each restart.
///
/// The backoff is exponential in the number of restarts inside the window, capped at
/// ``maximumDelay``, with "equal jitter" (half fixed, half random) so restarted peers do not
/// move in lockstep. The defaults are Erlang/OTP's usual shape: 3 restarts in 5 seconds,
/// 10 ms doubling up to 1 s.
public struct RestartPolicy: Sendable, Equatable {
    /// Restarts allowed inside one ``period``. Default 3.
    public var maxRestarts: Int
    /// The sliding window of the intensity limit. Default 5 seconds.
    public var period: Duration
    /// The delay before the first restart of a window, before jitter. Default 10 ms.
    public var initialDelay: Duration
    /// The cap on the delay before a restart. Default 1 second.
    public var maximumDelay: Duration

    /// Creates a policy; every parameter has the default documented on its property.
    public init(
        maxRestarts: Int = 3,
        period: Duration = .seconds(5),
        initialDelay: Duration = .milliseconds(10),
        maximumDelay: Duration = .seconds(1)
    ) {
        self.maxRestarts = max(0, maxRestarts)
        self.period = period
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// The delay before restart number `restart` (1-based) of the current window, given a
    /// uniform random value `unit` in `0 ..< 1`.
    func delay(restart: Int, unit: Double) -> Duration {
        guard initialDelay > .zero, restart > 0 else { return .zero }
        let doublings = min(restart - 1, 30)
        let capped = min(initialDelay * (1 << doublings), maximumDelay)
        return capped / 2 + capped * (unit / 2)
    }
}
