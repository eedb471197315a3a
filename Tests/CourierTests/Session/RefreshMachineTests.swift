import Testing

@testable import Courier

@Suite struct RefreshMachineTests {
    /// The machine under test, in a class so that `#expect` can call its mutating methods.
    final class Subject {
        var machine: RefreshMachine
        init(_ machine: RefreshMachine) { self.machine = machine }
        var version: Int { machine.version }
        var phase: RefreshMachine.Phase { machine.phase }
        func need(rejected: Int? = nil, stale: Bool = false, now: Duration = .zero) -> RefreshMachine.Decision {
            machine.tokenNeeded(rejected: rejected, stale: stale, hasTokens: true, canRefresh: true, now: now)
        }
        func finished(_ generation: Int, _ outcome: RefreshMachine.Outcome) -> Bool {
            machine.refreshFinished(generation: generation, outcome)
        }
        func tokensSet() { machine.tokensSet() }
        func tokenNeeded(rejected: Int?, stale: Bool, hasTokens: Bool, canRefresh: Bool) -> RefreshMachine.Decision {
            machine.tokenNeeded(rejected: rejected, stale: stale, hasTokens: hasTokens, canRefresh: canRefresh, now: .zero)
        }
    }

    @Test("a fresh token is used as it is; a stale one starts one refresh that the others join")
    func oneRefreshForManyRequests() {
        let machine = Subject(RefreshMachine(version: 1))
        #expect(machine.need() == .useCurrent)
        #expect(machine.need(stale: true) == .start(generation: 1))
        for _ in 0..<100 { #expect(machine.need(stale: true) == .join) }
        #expect(machine.finished(1, .refreshed))
        #expect(machine.version == 2)
        #expect(machine.phase == .idle)
    }

    @Test("a 401 for an older version takes the current token; for the current one it refreshes")
    func versionsPreventDoubleRefreshes() {
        let machine = Subject(RefreshMachine(version: 3))
        #expect(machine.need(rejected: 3) == .start(generation: 1))
        #expect(machine.need(rejected: 3) == .join)
        #expect(machine.finished(1, .refreshed))
        // Late 401s for the token that was just replaced: no second refresh.
        #expect(machine.need(rejected: 3) == .useCurrent)
        #expect(machine.need(rejected: 4) == .start(generation: 2))
    }

    @Test("a rejected refresh token latches: every request is refused until tokens are set")
    func rejectionLatches() {
        let machine = Subject(RefreshMachine(version: 1))
        #expect(machine.need(stale: true) == .start(generation: 1))
        #expect(machine.finished(1, .rejected))
        #expect(machine.phase == .failed)
        #expect(machine.need() == .refuse(.sessionExpired))
        #expect(machine.need(rejected: 1) == .refuse(.sessionExpired))
        machine.tokensSet()
        #expect(machine.need() == .useCurrent)
    }

    @Test("a transient failure keeps the tokens and lets the next request try again")
    func transientFailureRetriesLater() {
        let machine = Subject(RefreshMachine(version: 1))
        #expect(machine.need(stale: true) == .start(generation: 1))
        #expect(machine.finished(1, .transient))
        #expect(machine.version == 1)
        #expect(machine.need(stale: true) == .start(generation: 2))
    }

    @Test("at most five refreshes start in thirty seconds; the window slides on the clock")
    func refreshWindow() {
        let machine = Subject(RefreshMachine(version: 1, limit: 5, window: .seconds(30)))
        for generation in 1...5 {
            #expect(machine.need(rejected: machine.version, now: .seconds(generation)) == .start(generation: generation))
            #expect(machine.finished(generation, .refreshed))
        }
        #expect(machine.need(rejected: machine.version, now: .seconds(10)) == .refuse(.tooManyRefreshes))
        #expect(machine.need(rejected: machine.version, now: .seconds(31)) == .start(generation: 6))
    }

    @Test("the outcome of a refresh superseded by a sign-in is ignored")
    func supersededRefreshIsIgnored() {
        let machine = Subject(RefreshMachine(version: 1))
        #expect(machine.need(stale: true) == .start(generation: 1))
        machine.tokensSet()
        #expect(!machine.finished(1, .rejected))
        #expect(machine.phase == .idle)
        #expect(machine.version == 2)
    }

    @Test("no tokens, or no refresh token when one is needed, is refused")
    func refusals() {
        let machine = Subject(RefreshMachine())
        #expect(machine.tokenNeeded(rejected: nil, stale: false, hasTokens: false, canRefresh: false) == .refuse(.signedOut))
        #expect(machine.tokenNeeded(rejected: nil, stale: true, hasTokens: true, canRefresh: false) == .refuse(.noRefreshToken))
    }

    @Test("a 401 for a token of an earlier session is refused, not replayed under the new session's token")
    func noReplayAcrossSessions() {
        let machine = Subject(RefreshMachine(version: 1))
        machine.tokensSet()   // another user signs in: version 2
        #expect(machine.need(rejected: 1) == .refuse(.sessionChanged))
        #expect(machine.need(rejected: 2) == .start(generation: 1))
    }
}
