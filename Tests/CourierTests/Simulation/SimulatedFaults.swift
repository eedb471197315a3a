import Foundation

@testable import Courier

/// The component faults of one simulation run, shared by every process (client) it starts
/// through test doubles of what the components depend on: the queue's and the cache's storage
/// (``FaultyOfflineStorage``, ``FaultyCacheStorage``) and the queue as the coordinator's drains
/// reach it (``FaultyDrainQueue``).
///
/// - A **crash** armed for a component fails it at its next step: the queue's or the cache's
///   next storage step (an I/O error), the coordinator's next drain claim (a broken contract).
///   The supervisor discards the instance (its held replies answer `componentRestarted`) and
///   starts a new one on the same mailbox.
/// - A **kill** armed with a countdown lets the live process's offline queue take that many
///   more storage steps, then the process is dead: from then on every storage step of its
///   queue and cache and every drain claim of its coordinator throws (so nothing more is
///   written to its files), and its link to the server refuses everything. The countdown
///   counts storage steps, so it puts the death between any two of them.
final class SimulatedFaults: Sendable {
    enum Target: String, Sendable, CaseIterable {
        case queue, coordinator, cache
    }

    private struct State {
        var crashes: [Target: Int] = [:]
        var killCountdown: Int?
        /// Opened when the armed kill happens.
        var died = Latch()
        var dead: Set<Int> = []
        var crashed = 0
    }

    private let state = Locked(State())

    /// The error a hook throws for a crash or a dead process.
    struct Injected: Error, CustomStringConvertible {
        let description: String
    }

    /// The next `times` steps of `target` fail (more than the restart intensity allows, in
    /// a burst, and the supervisor gives up).
    func arm(_ target: Target, times: Int = 1) {
        state.withLock { $0.crashes[target, default: 0] += times }
    }

    /// The live process dies after its queue took `steps` more storage steps; the latch
    /// opens when it does (or at ``kill(_:)``).
    func armKill(afterStorageSteps steps: Int) -> Latch {
        state.withLock {
            $0.killCountdown = steps
            $0.died = Latch()
            return $0.died
        }
    }

    /// Process `generation` dies now (if the countdown has not killed it already).
    func kill(_ generation: Int) {
        let died = state.withLock {
            $0.dead.insert(generation)
            $0.killCountdown = nil
            return $0.died
        }
        died.open()
    }

    /// No crash or kill armed any more (the end of a schedule).
    func disarm() {
        state.withLock {
            $0.crashes = [:]
            $0.killCountdown = nil
        }
    }

    func isDead(_ generation: Int) -> Bool {
        state.withLock { $0.dead.contains(generation) }
    }

    var crashCount: Int { state.withLock { $0.crashed } }

    /// The hook: the error `target` of process `generation` fails its next step with, if any.
    func fault(_ target: Target, generation: Int) -> (any Error)? {
        let (error, died) = state.withLock { state -> ((any Error)?, Latch?) in
            if state.dead.contains(generation) { return (Injected(description: "process \(generation) was killed"), nil) }
            if target == .queue, let countdown = state.killCountdown {
                if countdown == 0 {
                    state.dead.insert(generation)
                    state.killCountdown = nil
                    return (Injected(description: "process \(generation) killed"), state.died)
                }
                state.killCountdown = countdown - 1
            }
            if let left = state.crashes[target], left > 0 {
                state.crashes[target] = left - 1
                state.crashed += 1
                return (Injected(description: "injected crash of the \(target.rawValue)"), nil)
            }
            return (nil, nil)
        }
        died?.open()
        return error
    }
}
