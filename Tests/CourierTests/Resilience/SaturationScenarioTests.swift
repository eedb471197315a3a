import Foundation
import Testing

@testable import Courier

/// The saturation scenario of issue 38 as a discrete-event simulation of the pipeline's pure
/// admission values (``AdmissionLane``, ``AdaptiveLimit``) in front of a modelled server: two
/// workers, 1 ms per call, first come first served (2,000 calls/s, its queue adding latency as
/// it grows), offered 4,000 calls/s for 5 s, a fifth interactive, two fifths default, two
/// fifths background. Time is simulated, so every run is the same and exact; the benchmark's
/// `--profile resilience` runs the same load through a real client in real time.
@Suite struct SaturationScenarioTests {
    struct Outcome {
        var completed = 0
        var seconds = 0.0
        var interactive: [Duration] = []
        var shed: [RequestPriority: Int] = [:]
        var limits: [Int] = []

        var goodput: Double { Double(completed) / seconds }
        var interactiveP99: Duration {
            let sorted = interactive.sorted()
            return sorted[Int((Double(sorted.count - 1) * 0.99).rounded(.up))]
        }
    }

    static let service = Duration.milliseconds(1)
    static let capacity = 2_000.0

    private let reply: Reply<Void>

    init() async {
        reply = await Reply<Void>.detached()
    }

    /// Runs the scenario under `limit`: arrivals every 250 µs, each call started when its lane
    /// lets it and sent to the worker free first, its latency from arrival to answer.
    func simulate(_ limit: AdmissionLane.Limit, seconds: Int = 5) -> Outcome {
        var lane = AdmissionLane(limit, maxQueued: 1_024)
        let arrivals = 4_000 * seconds
        let gap = Duration.microseconds(250)
        var workersFreeAt: [Duration] = [.zero, .zero]
        // Calls at the server: (when it answers, id, when it was sent, in flight when sent).
        var inServer: [(done: Duration, id: UInt64, sent: Duration, inflight: Int)] = []
        var arrivedAt: [UInt64: Duration] = [:]
        var priorities: [UInt64: RequestPriority] = [:]
        var outcome = Outcome()
        var now = Duration.zero

        func send(_ id: UInt64) {
            lane.running += 1
            let worker = workersFreeAt[0] <= workersFreeAt[1] ? 0 : 1
            let done = max(workersFreeAt[worker], now) + Self.service
            workersFreeAt[worker] = done
            let index = inServer.firstIndex { $0.done > done } ?? inServer.endIndex
            inServer.insert((done, id, now, lane.running), at: index)
        }

        var next = 0
        while next < arrivals || !inServer.isEmpty {
            let arrival = next < arrivals ? gap * next : nil
            if let first = inServer.first, arrival == nil || first.done <= arrival! {
                inServer.removeFirst()
                now = first.done
                lane.running -= 1
                if let changed = lane.record(LatencySample(rtt: now - first.sent, dropped: false), inflight: first.inflight) {
                    outcome.limits.append(changed)
                }
                outcome.completed += 1
                if priorities[first.id] == .interactive { outcome.interactive.append(now - arrivedAt[first.id]!) }
                while let waiting = lane.next() { send(waiting.id.rawValue) }
                continue
            }
            now = arrival!
            let id = UInt64(next)
            let priority: RequestPriority = next % 5 == 0 ? .interactive : next % 5 < 3 ? .default : .background
            next += 1
            arrivedAt[id] = now
            priorities[id] = priority
            switch lane.arrive(WaitingRequest(id: RequestID(id), deadline: .seconds(3_600), call: RunningCall(), reply: reply, priority: priority)) {
            case .runs: send(id)
            case .waits(let shed?): outcome.shed[shed.priority, default: 0] += 1
            case .waits(nil): break
            case .refused: outcome.shed[priority, default: 0] += 1
            }
        }
        outcome.seconds = now.inSeconds
        return outcome
    }

    @Test("adaptive: goodput kept, background shed first and interactive never, interactive p99 within 3× the unloaded latency")
    func adaptive() {
        let adaptive = simulate(.adaptive(AdaptiveLimit(policy: ConcurrencyLimitPolicy())))
        let fixed = simulate(.fixed(64))
        for outcome in [adaptive, fixed] {
            #expect(outcome.goodput >= 0.9 * Self.capacity)
            #expect(outcome.shed[.interactive, default: 0] == 0)
            #expect(outcome.shed[.background, default: 0] > outcome.shed[.default, default: 0])
        }
        // Issue 38's target: the unloaded latency is one service time.
        #expect(adaptive.interactiveP99 <= Self.service * 3)
        // The fixed limit keeps up to 62 calls queued at the origin, ahead of any interactive one.
        #expect(fixed.interactiveP99 >= Self.service * 30)
        #expect(adaptive.limits.max()! <= ConcurrencyLimitPolicy().initialLimit)
    }
}
