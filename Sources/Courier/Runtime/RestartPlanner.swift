/// Which children a supervisor restarts when one of them exits.
public enum RestartStrategy: Sendable, Equatable {
    /// Restart only the child that exited.
    case oneForOne
    /// Restart the child that exited and every child started after it (they depend on it).
    case restForOne
}

/// When a child is restarted (Erlang/OTP's restart types).
public enum RestartType: Sendable, Equatable {
    /// Always restarted, whether it failed or exited normally.
    case permanent
    /// Restarted only if it failed.
    case transient
    /// Never restarted.
    case temporary
}

/// How a child's instance ended.
public enum ChildExit: Sendable, Equatable {
    /// Its loop returned (its mailbox was closed, or it finished its work).
    case normal
    /// It threw: the component failed.
    case failed
}

/// The restart intensity limit: at most `maxRestarts` restarts within any `period`; one more
/// failure in that window and the supervisor gives up.
public struct RestartIntensity: Sendable, Equatable {
    /// Restarts allowed inside one `period`. Default 3.
    public var maxRestarts: Int
    /// The sliding window. Default 5 seconds.
    public var period: Duration

    /// Creates a limit; the defaults are 3 restarts in 5 seconds.
    public init(maxRestarts: Int = 3, period: Duration = .seconds(5)) {
        self.maxRestarts = maxRestarts
        self.period = period
    }
}

/// The delay before a restart: exponential in the number of recent restarts, capped, with
/// "equal jitter" (half fixed, half random) so restarted peers do not move in lockstep.
public struct RestartBackoff: Sendable, Equatable {
    /// The delay before the first restart of a window, before jitter. Default 10 ms.
    public var initial: Duration
    /// The cap on the delay. Default 1 second.
    public var maximum: Duration

    /// Creates a backoff; the defaults are 10 ms doubling up to 1 s.
    public init(initial: Duration = .milliseconds(10), maximum: Duration = .seconds(1)) {
        self.initial = initial
        self.maximum = maximum
    }

    /// No delay at all: restart at once.
    public static let immediate = RestartBackoff(initial: .zero, maximum: .zero)

    /// The delay before restart number `attempt` (1-based) of the current window, given a
    /// uniform random value `unit` in `0 ..< 1`.
    public func delay(attempt: Int, unit: Double) -> Duration {
        guard initial > .zero, attempt > 0 else { return .zero }
        let doublings = min(attempt - 1, 30)
        let raw = initial * (1 << doublings)
        let capped = min(raw, maximum)
        return capped / 2 + capped * (unit / 2)
    }
}

/// What a supervisor does after a child exits.
public enum SupervisionDecision: Sendable, Equatable {
    /// Leave the child stopped (temporary child, or transient child that exited normally).
    case leaveStopped
    /// Restart these children, in this order, after the delay. Under rest-for-one the
    /// running children after the failed one must be stopped first.
    case restart(children: [Int], after: Duration)
    /// The intensity limit is exceeded: stop everything and report it.
    case giveUp
}

/// The supervisor's restart decisions as a pure state machine: strategy, restart types,
/// intensity limit and backoff, with time and randomness passed in. No actors, no I/O, so
/// every rule is unit-tested directly.
public struct RestartPlanner: Sendable {
    /// Which children to restart.
    public let strategy: RestartStrategy
    /// The limit beyond which the supervisor gives up.
    public let intensity: RestartIntensity
    /// The delay before each restart.
    public let backoff: RestartBackoff
    /// When the restarts still inside the intensity window happened.
    public private(set) var recentRestarts: [Duration] = []

    /// Creates a planner with no restart history.
    public init(strategy: RestartStrategy, intensity: RestartIntensity, backoff: RestartBackoff) {
        self.strategy = strategy
        self.intensity = intensity
        self.backoff = backoff
    }

    /// Decides what to do now that child `index` exited.
    /// - Parameters:
    ///   - restartTypes: the restart type of every child, in start order.
    ///   - now: the supervisor clock's current time.
    ///   - randomUnit: a uniform random value in `0 ..< 1`, for jitter.
    public mutating func childExited(
        _ index: Int, exit: ChildExit, restartTypes: [RestartType], now: Duration, randomUnit: Double
    ) -> SupervisionDecision {
        switch (restartTypes[index], exit) {
        case (.temporary, _), (.transient, .normal):
            return .leaveStopped
        case (.permanent, _), (.transient, .failed):
            break
        }
        recentRestarts.removeAll { now - $0 >= intensity.period }
        guard recentRestarts.count < intensity.maxRestarts else { return .giveUp }
        recentRestarts.append(now)
        let delay = backoff.delay(attempt: recentRestarts.count, unit: randomUnit)
        switch strategy {
        case .oneForOne:
            return .restart(children: [index], after: delay)
        case .restForOne:
            let later = restartTypes.indices.dropFirst(index + 1).filter { restartTypes[$0] != .temporary }
            return .restart(children: [index] + later, after: delay)
        }
    }
}
