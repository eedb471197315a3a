/// The supervisor's restart decisions as a pure state machine: strategy, restart types,
/// intensity limit and backoff, with time and randomness passed in. No actors, no I/O, so
/// every rule is unit-tested directly.
struct RestartPlanner: Sendable {
    /// How a child's instance ended.
    enum Exit: Sendable, Equatable {
        /// Its loop returned (its mailbox was closed, or it finished its work).
        case normal
        /// It threw: the component failed.
        case failed
    }

    /// What a supervisor does after a child exits.
    enum Decision: Sendable, Equatable {
        /// Leave the child stopped (temporary child, or transient child that exited normally).
        case leaveStopped
        /// Restart these children, in this order, after the delay. Under rest-for-one the
        /// running children after the failed one must be stopped first.
        case restart(children: [Int], after: Duration)
        /// The intensity limit is exceeded: stop everything and report it.
        case giveUp
    }

    /// Which children to restart.
    let strategy: RestartStrategy
    /// The intensity limit and the backoff.
    let policy: RestartPolicy
    /// When the restarts still inside the intensity window happened.
    private(set) var recentRestarts: [Duration] = []

    /// Creates a planner with no restart history.
    init(strategy: RestartStrategy, policy: RestartPolicy) {
        self.strategy = strategy
        self.policy = policy
    }

    /// Decides what to do now that child `index` exited.
    /// - Parameters:
    ///   - restartTypes: the restart type of every child, in start order.
    ///   - now: the supervisor clock's current time.
    ///   - randomUnit: a uniform random value in `0 ..< 1`, for jitter.
    mutating func childExited(
        _ index: Int, exit: Exit, restartTypes: [RestartType], now: Duration, randomUnit: Double
    ) -> Decision {
        switch (restartTypes[index], exit) {
        case (.temporary, _), (.transient, .normal):
            return .leaveStopped
        case (.permanent, _), (.transient, .failed):
            break
        }
        recentRestarts.removeAll { now - $0 >= policy.period }
        guard recentRestarts.count < policy.maxRestarts else { return .giveUp }
        recentRestarts.append(now)
        let delay = policy.delay(restart: recentRestarts.count, unit: randomUnit)
        switch strategy {
        case .oneForOne:
            return .restart(children: [index], after: delay)
        case .restForOne:
            let later = restartTypes.indices.dropFirst(index + 1).filter { restartTypes[$0] != .temporary }
            return .restart(children: [index] + later, after: delay)
        }
    }
}
