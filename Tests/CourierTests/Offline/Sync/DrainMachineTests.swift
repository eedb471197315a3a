import Testing

@testable import Courier

@Suite struct DrainMachineTests {
    @Test("connectivity back starts one drain; going offline stops it")
    func connectivity() {
        var machine = DrainMachine(connectivity: .offline)
        #expect(machine.connectivityChanged(.online) == .start(generation: 1, forced: false))
        #expect(machine.connectivityChanged(.online) == DrainMachine.Action.none)
        #expect(machine.connectivityChanged(.offline) == .stop(generation: 1))
        #expect(machine.finished(generation: 1) == DrainMachine.Action.none)
        #expect(machine.phase == .idle)
    }

    @Test("requests during a drain run one more drain after it, never two at once")
    func oneAtATime() {
        var machine = DrainMachine(connectivity: .online)
        #expect(machine.requested(by: .app, hasWaiting: false) == .start(generation: 1, forced: true))
        for _ in 0..<5 { #expect(machine.requested(by: .newItems, hasWaiting: true) == DrainMachine.Action.none) }
        #expect(machine.finished(generation: 7) == DrainMachine.Action.none)   // not the running one
        #expect(machine.finished(generation: 1) == .start(generation: 2, forced: false))
        #expect(machine.finished(generation: 2) == DrainMachine.Action.none)
    }

    @Test("new items drain unless offline; syncNow always; the tick while items wait, as a probe when offline")
    func triggers() {
        var machine = DrainMachine(connectivity: .offline)
        #expect(machine.requested(by: .newItems, hasWaiting: true) == DrainMachine.Action.none)
        #expect(machine.requested(by: .timer, hasWaiting: false) == DrainMachine.Action.none)
        #expect(machine.requested(by: .timer, hasWaiting: true) == .start(generation: 1, forced: true))
        _ = machine.finished(generation: 1)
        #expect(machine.requested(by: .app, hasWaiting: false) == .start(generation: 2, forced: true))
        _ = machine.finished(generation: 2)
        _ = machine.connectivityChanged(.unknown)
        #expect(machine.requested(by: .newItems, hasWaiting: false) == DrainMachine.Action.none)
        #expect(machine.requested(by: .newItems, hasWaiting: true) == .start(generation: 3, forced: false))
        _ = machine.finished(generation: 3)
        #expect(machine.requested(by: .timer, hasWaiting: true) == .start(generation: 4, forced: false))
    }
}
