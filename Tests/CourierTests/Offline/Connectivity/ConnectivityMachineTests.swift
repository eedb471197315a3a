import Testing

@testable import Courier

@Suite struct ConnectivityMachineTests {
    @Test("the first known state is published at once; later changes wait for the debounce")
    func firstStateThenDebounce() {
        var machine = ConnectivityMachine(debounce: .seconds(1))
        #expect(machine.observe(.online, from: .probe) == .publish(.online, .probe))
        #expect(machine.observe(.online, from: .requests) == ConnectivityMachine.Action.none)
        #expect(machine.observe(.offline, from: .requests) == .settleAfter(.seconds(1), generation: 1))
        #expect(machine.settle(generation: 1)! == (.offline, .requests))
        #expect(machine.published == .offline)
    }

    @Test("flapping 50 times ends in one settle; a flap back to the published state cancels the timer")
    func flapping() {
        var machine = ConnectivityMachine(debounce: .seconds(1), published: .offline)
        var timers: [Int] = []
        var cancels = 0
        for flap in 0..<50 {
            switch machine.observe(flap.isMultiple(of: 2) ? .online : .offline, from: .link) {
            case .settleAfter(_, let generation): timers.append(generation)
            case .cancelTimer: cancels += 1
            default: break
            }
        }
        #expect(timers.count == 25 && cancels == 25)
        #expect(machine.settle(generation: timers.last!) == nil)   // it ended offline, as published
        _ = machine.observe(.online, from: .link)
        #expect(machine.settle(generation: timers.last!) == nil)   // an old timer does nothing
        #expect(machine.settle(generation: timers.last! + 1)! == (.online, .link))
    }

    @Test("repeated observations of the pending state keep the running timer")
    func steadyTrafficDoesNotPostpone() {
        var machine = ConnectivityMachine(debounce: .seconds(1), published: .offline)
        #expect(machine.observe(.online, from: .requests) == .settleAfter(.seconds(1), generation: 1))
        for _ in 0..<10 { #expect(machine.observe(.online, from: .requests) == ConnectivityMachine.Action.none) }
        #expect(machine.settle(generation: 1)! == (.online, .requests))
    }

    @Test("no link means offline whatever the probe says; a link back up counts as online")
    func linkDominates() {
        var machine = ConnectivityMachine(debounce: .zero)
        _ = machine.observe(.online, from: .probe)
        #expect(machine.observe(.offline, from: .link) == .publish(.offline, .link))
        #expect(machine.observe(.online, from: .probe) == ConnectivityMachine.Action.none)
        #expect(machine.combined == .offline)
        _ = machine.observe(.offline, from: .requests)
        #expect(machine.observe(.online, from: .link) == .publish(.online, .link))
    }
}

@Suite struct ProbeScheduleTests {
    @Test("every interval while up; soon after a failure, then doubling up to the interval")
    func delays() {
        let schedule = ProbeSchedule(interval: .seconds(30), retryDelay: .seconds(1))
        #expect(schedule.delay(afterFailures: 0) == .seconds(30))
        #expect((1...7).map { schedule.delay(afterFailures: $0) } == [1, 2, 4, 8, 16, 30, 30].map { .seconds($0) })
        #expect(schedule.delay(afterFailures: 10_000) == .seconds(30))
    }
}
