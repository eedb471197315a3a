import Testing

@testable import Courier

/// The lane as a value: who runs, who waits, who is shed; no pipeline, no tasks.
@Suite struct AdmissionLaneTests {
    private let reply: Reply<Void>

    init() async {
        reply = await Reply<Void>.detached()
    }

    private func request(_ id: UInt64, _ priority: RequestPriority) -> WaitingRequest {
        WaitingRequest(id: RequestID(id), deadline: .seconds(1), call: RunningCall(), reply: reply, priority: priority)
    }

    private func arrive(_ lane: inout AdmissionLane, _ id: UInt64, _ priority: RequestPriority) -> String {
        switch lane.arrive(request(id, priority)) {
        case .runs:
            lane.running += 1
            return "runs"
        case .waits(nil): return "waits"
        case .waits(let shed?): return "waits, sheds \(shed.id.rawValue)"
        case .refused: return "refused"
        }
    }

    @Test("past the limit calls wait; a full queue sheds the newest of the lowest priority below the newcomer's")
    func waitsThenSheds() {
        var lane = AdmissionLane(.fixed(1), maxQueued: 2)
        #expect(arrive(&lane, 1, .default) == "runs")
        #expect(arrive(&lane, 2, .background) == "waits")
        #expect(arrive(&lane, 3, .background) == "waits")
        #expect(arrive(&lane, 4, .default) == "waits, sheds 3")
        #expect(arrive(&lane, 5, .background) == "refused")
        #expect(arrive(&lane, 6, .interactive) == "waits, sheds 2")
        #expect(arrive(&lane, 7, .default) == "refused")   // nothing below default waits
        #expect(lane.waiting == 2)
        #expect(lane.next() == nil)                         // the slot is taken
        lane.running -= 1
        #expect(lane.next()?.id.rawValue == 6)
        lane.running += 1
        lane.running -= 1
        #expect(lane.next()?.id.rawValue == 4)
        #expect(lane.waiting == 0)
    }

    @Test("an adaptive lane's limit moves with its samples, and only it reports a change")
    func adaptiveLimitMoves() {
        var lane = AdmissionLane(.adaptive(AdaptiveLimit(policy: ConcurrencyLimitPolicy(initialLimit: 2, minLimit: 1, maxLimit: 2))), maxQueued: 4)
        #expect(lane.record(LatencySample(rtt: .milliseconds(10), dropped: false), inflight: 2) == nil)   // the no-load latency
        #expect(lane.record(LatencySample(rtt: .milliseconds(10), dropped: true), inflight: 2) == 1)
        #expect(lane.limit == 1)
        var fixed = AdmissionLane(.fixed(3), maxQueued: 4)
        #expect(fixed.record(LatencySample(rtt: .milliseconds(10), dropped: true), inflight: 3) == nil)
        #expect(fixed.limit == 3)
    }
}
