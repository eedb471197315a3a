import Testing
@testable import Courier

@Suite struct RestartPlannerTests {
    let noJitter = 0.0

    func planner(
        _ strategy: RestartStrategy = .oneForOne,
        policy: RestartPolicy = .immediate
    ) -> RestartPlanner {
        RestartPlanner(strategy: strategy, policy: policy)
    }

    @Test("one for one restarts only the failed child")
    func oneForOneRestartsOnlyTheFailedChild() {
        var planner = planner()
        let decision = planner.childExited(1, exit: .failed, restartTypes: [.permanent, .permanent, .permanent], now: .zero, randomUnit: noJitter)
        #expect(decision == .restart(children: [1], after: .zero))
    }

    @Test("rest for one restarts the failed child and later non temporary ones")
    func restForOneRestartsTheFailedChildAndLaterNonTemporaryOnes() {
        var planner = planner(.restForOne)
        let types: [RestartType] = [.permanent, .permanent, .temporary, .transient]
        let decision = planner.childExited(1, exit: .failed, restartTypes: types, now: .zero, randomUnit: noJitter)
        #expect(decision == .restart(children: [1, 3], after: .zero))
    }

    @Test("restart types")
    func restartTypes() {
        var planner = planner()
        let types: [RestartType] = [.permanent, .transient, .temporary]
        #expect(planner.childExited(0, exit: .normal, restartTypes: types, now: .zero, randomUnit: 0) == .restart(children: [0], after: .zero))
        #expect(planner.childExited(1, exit: .normal, restartTypes: types, now: .zero, randomUnit: 0) == .leaveStopped)
        #expect(planner.childExited(1, exit: .failed, restartTypes: types, now: .zero, randomUnit: 0) == .restart(children: [1], after: .zero))
        #expect(planner.childExited(2, exit: .failed, restartTypes: types, now: .zero, randomUnit: 0) == .leaveStopped)
        #expect(planner.childExited(2, exit: .normal, restartTypes: types, now: .zero, randomUnit: 0) == .leaveStopped)
    }

    @Test("gives up on the fourth failure within five seconds")
    func givesUpOnTheFourthFailureWithinFiveSeconds() {
        var planner = planner()
        let types: [RestartType] = [.permanent]
        for second in 0..<3 {
            #expect(planner.childExited(0, exit: .failed, restartTypes: types, now: .seconds(second), randomUnit: 0) != .giveUp)
        }
        #expect(planner.childExited(0, exit: .failed, restartTypes: types, now: .milliseconds(4_999), randomUnit: 0) == .giveUp)
    }

    @Test("failures outside the window do not count")
    func failuresOutsideTheWindowDoNotCount() {
        var planner = planner()
        let types: [RestartType] = [.permanent]
        for second in [0, 1, 2, 5, 6, 7, 10, 11, 12] {
            #expect(planner.childExited(0, exit: .failed, restartTypes: types, now: .seconds(second), randomUnit: 0) != .giveUp,
                    "at \(second)s")
        }
        #expect(planner.recentRestarts == [.seconds(10), .seconds(11), .seconds(12)])
    }

    @Test("transient and temporary exits do not consume intensity")
    func transientAndTemporaryExitsDoNotConsumeIntensity() {
        var planner = planner(policy: RestartPolicy(maxRestarts: 1, period: .seconds(5), initialDelay: .zero))
        let types: [RestartType] = [.permanent, .transient, .temporary]
        for _ in 0..<10 {
            #expect(planner.childExited(1, exit: .normal, restartTypes: types, now: .zero, randomUnit: 0) == .leaveStopped)
            #expect(planner.childExited(2, exit: .failed, restartTypes: types, now: .zero, randomUnit: 0) == .leaveStopped)
        }
        #expect(planner.childExited(0, exit: .failed, restartTypes: types, now: .zero, randomUnit: 0) != .giveUp)
        #expect(planner.childExited(0, exit: .failed, restartTypes: types, now: .zero, randomUnit: 0) == .giveUp)
    }

    @Test("restart delay doubles is capped and jittered")
    func restartDelayDoublesIsCappedAndJittered() {
        let backoff = RestartPolicy(initialDelay: .milliseconds(100), maximumDelay: .milliseconds(350))
        #expect(backoff.delay(restart: 1, unit: 0) == .milliseconds(50))
        #expect(backoff.delay(restart: 1, unit: 0.5) == .milliseconds(75))
        #expect(backoff.delay(restart: 2, unit: 0) == .milliseconds(100))
        #expect(backoff.delay(restart: 3, unit: 0) == .milliseconds(175))
        #expect(backoff.delay(restart: 3, unit: 0.999_999) < .milliseconds(350))
        #expect(backoff.delay(restart: 60, unit: 0) == .milliseconds(175))
        #expect(RestartPolicy.immediate.delay(restart: 5, unit: 0.7) == .zero)
    }

    @Test("planner uses backoff for consecutive restarts")
    func plannerUsesBackoffForConsecutiveRestarts() {
        var planner = planner(policy: RestartPolicy(maxRestarts: 5, initialDelay: .milliseconds(10), maximumDelay: .seconds(1)))
        let delays = (0..<3).map { _ in planner.childExited(0, exit: .failed, restartTypes: [.permanent], now: .zero, randomUnit: 0) }
        #expect(delays == [.restart(children: [0], after: .milliseconds(5)),
                           .restart(children: [0], after: .milliseconds(10)),
                           .restart(children: [0], after: .milliseconds(20))])
    }
}
