/// One origin's circuit breaker, as resilience4j's: a pure state machine (closed, open,
/// half-open) over a sliding window of call outcomes, driven by the times and the random
/// fraction its owner passes in, so it is tested on a manual clock.
///
/// - Closed: every call goes. Once the window holds `minimumCalls` outcomes and the share of
///   failures or of slow calls reaches its threshold, the breaker opens.
/// - Open: calls are refused at once, with when the breaker will let probes through (its open
///   duration, lengthened by up to `openJitter` of itself so that many clients do not probe
///   together).
/// - Half-open: `halfOpenProbes` calls go; when they have all ended, the breaker closes if their
///   rates are under the thresholds, else opens again.
///
/// An outcome is counted only in the state whose permit it carries: a call that began before a
/// change of state does not count after it.
struct CircuitBreaker: Sendable {
    struct Configuration: Sendable, Equatable {
        /// The outcomes the rates are computed over: the last `n` calls, or the calls of the
        /// last span of time (counted in one-second buckets).
        enum Window: Sendable, Equatable {
            case calls(Int)
            case time(Duration)
        }

        var window: Window = .calls(100)
        /// The share of failures (0…1) that opens the breaker.
        var failureRateThreshold = 0.5
        /// The share of slow calls (0…1) that opens the breaker; 1 never opens on slowness alone
        /// unless every call is slow.
        var slowCallRateThreshold = 1.0
        /// A call that takes at least this long is slow, whatever its outcome.
        var slowCallDuration: Duration = .seconds(60)
        /// No rate is judged over fewer outcomes.
        var minimumCalls = 10
        var openDuration: Duration = .seconds(30)
        /// Up to this share of `openDuration` is added at random to each opening.
        var openJitter = 0.2
        var halfOpenProbes = 3
        /// How long the breaker stays half-open waiting for its probes' outcomes before it opens
        /// again: a probe whose outcome is never reported does not shut the origin out for good.
        var maximumHalfOpenWait: Duration = .seconds(60)

        /// The same settings brought into range: rates in (0, 1], at least one call and probe,
        /// no more minimum calls than a count window holds, a time window of 1 s to 1 h.
        var checked: Configuration {
            var checked = self
            checked.failureRateThreshold = min(max(failureRateThreshold, 0.000_1), 1)
            checked.slowCallRateThreshold = min(max(slowCallRateThreshold, 0.000_1), 1)
            checked.openJitter = max(0, openJitter)
            checked.halfOpenProbes = max(1, halfOpenProbes)
            checked.minimumCalls = max(1, minimumCalls)
            switch window {
            case .calls(let size):
                checked.window = .calls(max(1, size))
                checked.minimumCalls = min(checked.minimumCalls, max(1, size))
            case .time(let span):
                checked.window = .time(min(max(span, .seconds(1)), .seconds(3_600)))
            }
            return checked
        }
    }

    enum State: Sendable, Equatable {
        case closed
        /// Refusing calls until `until` (on the owner's clock).
        case open(until: Duration)
        case halfOpen
    }

    /// How a call ended, as the breaker counts it: a 4xx is a success (the origin answered), a
    /// cancellation is ignored.
    enum Outcome: Sendable, Equatable {
        case success
        case failure
        case ignored
    }

    /// What a call may do.
    enum Decision: Sendable, Equatable {
        /// Go; report the outcome with this permit.
        case permitted(Permit)
        /// Refused; `retryAt` is when the breaker lets probes through (nil: when a probe ends).
        case refused(retryAt: Duration?)
    }

    /// A call's ticket: the state it was let through in.
    struct Permit: Sendable, Equatable {
        fileprivate let generation: Int
    }

    /// A change of state, for the owner's events.
    struct Transition: Sendable, Equatable {
        let from: State
        let to: State
    }

    let configuration: Configuration
    private(set) var state: State = .closed
    /// Bumped at every change of state; permits of older generations are not counted.
    private var generation = 0
    private var window: OutcomeWindow
    private var probesStarted = 0
    private var probes = OutcomeWindow.Counts()
    /// When the breaker turned half-open.
    private var halfOpenSince = Duration.zero

    /// A closed breaker with `configuration`, brought into range (``Configuration/checked``).
    init(configuration: Configuration) {
        self.configuration = configuration.checked
        window = OutcomeWindow(self.configuration.window)
    }

    /// Whether a call may go at `now`. An open breaker whose time is up turns half-open here,
    /// and its first probe goes.
    mutating func acquire(now: Duration) -> (Decision, Transition?) {
        switch state {
        case .closed:
            return (.permitted(Permit(generation: generation)), nil)
        case .open(let until):
            guard now >= until else { return (.refused(retryAt: until), nil) }
            let transition = change(to: .halfOpen)
            probesStarted = 1
            halfOpenSince = now
            return (.permitted(Permit(generation: generation)), transition)
        case .halfOpen:
            if probesStarted >= configuration.halfOpenProbes, now >= halfOpenSince + configuration.maximumHalfOpenWait {
                // The probes' outcomes never came: open again (no jitter: nothing to spread).
                let transition = change(to: .open(until: now + configuration.openDuration))
                return (.refused(retryAt: now + configuration.openDuration), transition)
            }
            guard probesStarted < configuration.halfOpenProbes else { return (.refused(retryAt: nil), nil) }
            probesStarted += 1
            return (.permitted(Permit(generation: generation)), nil)
        }
    }

    /// Counts the outcome of a call let through with `permit`, which took `duration`; returns
    /// the change of state it causes. `random` (0..<1) draws the jitter of an opening.
    mutating func record(_ outcome: Outcome, of permit: Permit, duration: Duration, now: Duration, random: Double) -> Transition? {
        guard permit.generation == generation, outcome != .ignored else {
            // An ignored probe gives its place back.
            if permit.generation == generation, state == .halfOpen { probesStarted -= 1 }
            return nil
        }
        let slow = duration >= configuration.slowCallDuration
        switch state {
        case .closed:
            window.add(failed: outcome == .failure, slow: slow, at: now)
            let counts = window.counts(at: now)
            guard counts.calls >= configuration.minimumCalls, exceeds(counts) else { return nil }
            return open(now: now, random: random)
        case .halfOpen:
            probes.add(failed: outcome == .failure, slow: slow)
            guard probes.calls >= configuration.halfOpenProbes else { return nil }
            return exceeds(probes) ? open(now: now, random: random) : change(to: .closed)
        case .open:
            return nil
        }
    }

    private func exceeds(_ counts: OutcomeWindow.Counts) -> Bool {
        let calls = Double(counts.calls)
        return Double(counts.failures) / calls >= configuration.failureRateThreshold
            || Double(counts.slow) / calls >= configuration.slowCallRateThreshold
    }

    private mutating func open(now: Duration, random: Double) -> Transition {
        let jitter = configuration.openDuration * (configuration.openJitter * min(max(random, 0), 1))
        return change(to: .open(until: now + configuration.openDuration + jitter))
    }

    private mutating func change(to next: State) -> Transition {
        let transition = Transition(from: state, to: next)
        state = next
        generation += 1
        window = OutcomeWindow(configuration.window)
        probes = OutcomeWindow.Counts()
        probesStarted = 0
        return transition
    }
}
