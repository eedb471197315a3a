import Courier
import Foundation

/// A ``TimeSource`` whose time moves only when a test says so.
///
/// Sleepers wake when ``advance(by:)`` moves time past their deadline, in deadline order, so
/// backoff, `Retry-After`, expiry and restart delays run instantly and deterministically.
/// ``waitForSleepers(_:)`` lets a test wait until the code under test is actually sleeping
/// before advancing, instead of sleeping itself.
public final class ManualClock: TimeSource, Sendable {
    private struct Sleeper {
        let deadline: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Duration = .zero
        var sleepers: [Int: Sleeper] = [:]
        var nextID = 0
        /// Tasks in ``waitForSleepers(_:)``: the sleeper count each waits for, and its gate.
        var sleeperWaiters: [(count: Int, gate: Latch)] = []
    }

    private let state = Locked(State())
    private let startDate: Date

    /// Creates a clock at time zero whose wall clock starts at `startDate`.
    public init(startDate: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        self.startDate = startDate
    }

    /// The time the test has advanced to.
    public var now: Duration { state.withLock { $0.now } }

    /// `startDate` plus ``now``.
    public var currentDate: Date {
        startDate.addingTimeInterval(now.inSeconds)
    }

    /// How many tasks are sleeping on this clock right now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The deadlines of the current sleepers, as offsets from now, soonest first.
    public var pendingDelays: [Duration] {
        state.withLock { state in state.sleepers.values.map { $0.deadline - state.now }.sorted() }
    }

    /// Suspends until ``advance(by:)`` moves time past `duration` from now; throws
    /// `CancellationError` if the task is cancelled first.
    public func sleep(for duration: Duration) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (immediate, waiters) = state.withLock { state -> (Result<Void, any Error>?, [Latch]) in
                    if Task.isCancelled { return (.failure(CancellationError()), []) }
                    if duration <= .zero { return (.success(()), []) }
                    state.sleepers[id] = Sleeper(deadline: state.now + duration, continuation: continuation)
                    return (nil, Self.releaseSleeperWaiters(&state))
                }
                for waiter in waiters { waiter.open() }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `duration`, waking every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now += duration
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.sorted { $0.deadline < $1.deadline }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Returns once at least `count` tasks are sleeping on this clock, or once the calling task
    /// is cancelled (a test past its time limit then ends instead of waiting for ever).
    public func waitForSleepers(_ count: Int = 1) async {
        let gate = Latch()
        let ready = state.withLock { state -> Bool in
            if state.sleepers.count >= count { return true }
            state.sleeperWaiters.append((count, gate))
            return false
        }
        if !ready { await gate.wait() }
    }

    private static func releaseSleeperWaiters(_ state: inout State) -> [Latch] {
        let count = state.sleepers.count
        let ready = state.sleeperWaiters.filter { $0.count <= count }.map(\.gate)
        state.sleeperWaiters.removeAll { $0.count <= count }
        return ready
    }
}
