import Testing

@testable import Courier

/// The circuit breaker's state machine, on times passed in (no clock, no sleeping).
@Suite struct CircuitBreakerTests {
    private func breaker(_ change: (inout CircuitBreaker.Configuration) -> Void = { _ in }) -> CircuitBreaker {
        var configuration = CircuitBreaker.Configuration(
            window: .calls(10), failureRateThreshold: 0.5, slowCallRateThreshold: 1.0, slowCallDuration: .seconds(5),
            minimumCalls: 4, openDuration: .seconds(30), openJitter: 0.2, halfOpenProbes: 2)
        change(&configuration)
        return CircuitBreaker(configuration: configuration)
    }

    /// Lets a call through at `now` and records `outcome`; returns the transition, if any.
    @discardableResult
    private func call(
        _ breaker: inout CircuitBreaker, _ outcome: CircuitBreaker.Outcome, at now: Duration, taking duration: Duration = .milliseconds(10),
        random: Double = 0
    ) -> CircuitBreaker.Transition? {
        let (decision, _) = breaker.acquire(now: now)
        guard case .permitted(let permit) = decision else { Issue.record("refused at \(now)"); return nil }
        return breaker.record(outcome, of: permit, duration: duration, now: now + duration, random: random)
    }

    @Test("closed until the minimum calls are in and failures reach the threshold; then open, refusing with the time to retry")
    func opensOnFailureRate() {
        var breaker = breaker()
        call(&breaker, .failure, at: .seconds(1))
        call(&breaker, .failure, at: .seconds(2))
        call(&breaker, .failure, at: .seconds(3))
        #expect(breaker.state == .closed)   // 3 of 3 failed, but fewer than 4 calls
        let transition = call(&breaker, .success, at: .seconds(4), random: 0.5)
        // 3 of 4 failed: open for 30 s plus half of the 20 % jitter.
        let until = Duration.seconds(4) + .milliseconds(10) + .seconds(33)
        #expect(transition == .init(from: .closed, to: .open(until: until)))
        #expect(breaker.acquire(now: .seconds(10)).0 == .refused(retryAt: until))
    }

    @Test("a 4xx counts as a success, a cancellation not at all")
    func outcomesThatDoNotOpen() {
        var breaker = breaker()
        for second in 1...8 { call(&breaker, second % 2 == 0 ? .ignored : .success, at: .seconds(Int64(second))) }
        call(&breaker, .failure, at: .seconds(9))
        #expect(breaker.state == .closed)   // 1 failure of 5 counted calls
    }

    @Test("slow calls open the breaker at their own threshold")
    func opensOnSlowCalls() {
        var breaker = breaker { $0.slowCallRateThreshold = 0.75 }
        call(&breaker, .success, at: .seconds(1), taking: .seconds(6))
        call(&breaker, .success, at: .seconds(10), taking: .seconds(5))
        call(&breaker, .success, at: .seconds(20), taking: .seconds(1))
        #expect(breaker.state == .closed)
        let transition = call(&breaker, .success, at: .seconds(30), taking: .seconds(7))
        #expect(transition?.to == .open(until: .seconds(37) + .seconds(30)))
    }

    @Test("half-open lets the probes through, then closes when they succeed")
    func halfOpenCloses() {
        var breaker = breaker { $0.openJitter = 0 }
        for second in 1...4 { call(&breaker, .failure, at: .seconds(Int64(second))) }
        guard case .open(let until) = breaker.state else { Issue.record("not open"); return }
        let (first, transition) = breaker.acquire(now: until)
        #expect(transition == .init(from: .open(until: until), to: .halfOpen))
        let (second, _) = breaker.acquire(now: until)
        #expect(breaker.acquire(now: until).0 == .refused(retryAt: nil))   // only two probes
        guard case .permitted(let one) = first, case .permitted(let two) = second else { Issue.record("probes refused"); return }
        #expect(breaker.record(.success, of: one, duration: .milliseconds(5), now: until, random: 0) == nil)
        #expect(breaker.record(.success, of: two, duration: .milliseconds(5), now: until, random: 0) == .init(from: .halfOpen, to: .closed))
        #expect(breaker.acquire(now: until).0 != .refused(retryAt: nil))
    }

    @Test("a failing probe opens again; an ignored probe gives its place back")
    func halfOpenReopens() {
        var breaker = breaker { $0.openJitter = 0 }
        for second in 1...4 { call(&breaker, .failure, at: .seconds(Int64(second))) }
        guard case .open(let until) = breaker.state else { Issue.record("not open"); return }
        guard case .permitted(let cancelled) = breaker.acquire(now: until).0 else { Issue.record("refused"); return }
        #expect(breaker.record(.ignored, of: cancelled, duration: .zero, now: until, random: 0) == nil)
        guard case .permitted(let one) = breaker.acquire(now: until).0, case .permitted(let two) = breaker.acquire(now: until).0 else {
            Issue.record("probes refused"); return
        }
        _ = breaker.record(.failure, of: one, duration: .milliseconds(5), now: until + .seconds(1), random: 0)
        let transition = breaker.record(.success, of: two, duration: .milliseconds(5), now: until + .seconds(1), random: 0)
        #expect(transition == .init(from: .halfOpen, to: .open(until: until + .seconds(31))))
    }

    @Test("an outcome of a call let through before a change of state is not counted after it")
    func stalePermits() {
        var breaker = breaker()
        guard case .permitted(let early) = breaker.acquire(now: .zero).0 else { Issue.record("refused"); return }
        for second in 1...4 { call(&breaker, .failure, at: .seconds(Int64(second))) }
        let state = breaker.state
        #expect(breaker.record(.success, of: early, duration: .seconds(1), now: .seconds(5), random: 0) == nil)
        #expect(breaker.state == state)
    }

    @Test("a count window forgets the oldest outcome; a time window forgets the outcomes of past seconds")
    func windows() {
        var counted = breaker { $0.window = .calls(4) }
        for second in 1...3 { call(&counted, .success, at: .seconds(Int64(second))) }
        call(&counted, .failure, at: .seconds(4))
        call(&counted, .failure, at: .seconds(5))   // window: s s f f
        #expect(counted.state != .closed)

        var timed = breaker { $0.window = .time(.seconds(10)) }
        call(&timed, .failure, at: .seconds(1))
        call(&timed, .failure, at: .seconds(2))
        call(&timed, .failure, at: .seconds(3))
        // Twelve seconds on, those failures have left the window: 1 failure of 4 calls.
        for second in 15...17 { call(&timed, .success, at: .seconds(Int64(second))) }
        call(&timed, .failure, at: .seconds(18))
        #expect(timed.state == .closed)
        call(&timed, .failure, at: .seconds(19))
        call(&timed, .failure, at: .seconds(19))
        #expect(timed.state != .closed)   // 3 of 6 in the last ten seconds
    }

    @Test("probes whose outcomes never come: after the longest half-open wait, the breaker opens again")
    func lostProbes() {
        var breaker = breaker { $0.openJitter = 0; $0.maximumHalfOpenWait = .seconds(60) }
        for second in 1...4 { call(&breaker, .failure, at: .seconds(Int64(second))) }
        guard case .open(let until) = breaker.state else { Issue.record("not open"); return }
        _ = breaker.acquire(now: until)
        _ = breaker.acquire(now: until)   // both probes out, never reported
        #expect(breaker.acquire(now: until + .seconds(59)).0 == .refused(retryAt: nil))
        let (decision, transition) = breaker.acquire(now: until + .seconds(60))
        #expect(decision == .refused(retryAt: until + .seconds(90)))
        #expect(transition == .init(from: .halfOpen, to: .open(until: until + .seconds(90))))
        #expect(breaker.acquire(now: until + .seconds(90)).1?.to == .halfOpen)
    }

    @Test("settings out of range are brought into it: a minimum above the window's size, rates of 0, a huge span")
    func checkedSettings() {
        var breaker = breaker { $0.window = .calls(3); $0.minimumCalls = 50 }
        for second in 1...3 { call(&breaker, .failure, at: .seconds(Int64(second))) }
        #expect(breaker.state != .closed)
        let checked = CircuitBreaker(configuration: .init(window: .time(.seconds(1_000_000)), failureRateThreshold: 0, halfOpenProbes: 0)).configuration
        #expect(checked.window == .time(.seconds(3_600)))
        #expect(checked.failureRateThreshold > 0)
        #expect(checked.halfOpenProbes == 1)
    }
}
