/// Single flight: callers that ask for the same key while its work runs share that work's
/// result instead of each doing it (identical concurrent GraphQL queries without a cache).
///
/// The work runs in a task of its own, started from the first caller's task (so it carries
/// that task's task-local values) but not its child: a caller whose task is cancelled leaves at
/// once with the error given as ``cancelled`` and the work goes on for the others; when the
/// last caller leaves, the work is cancelled. A caller that comes after the work ended starts
/// anew.
final class SharedFlights<Key: Hashable & Sendable, Value: Sendable, Failure: Error>: Sendable {
    private typealias Waiter = UnsafeContinuation<Result<Value, Failure>, Never>

    /// One key's work and who waits for it.
    private struct Flight: Sendable {
        /// Tells this flight from a later one of the same key.
        let number: Int
        var waiters: [Int: Waiter]
        /// Set just after the flight starts: cancelled when every waiter left.
        var task: Task<Void, Never>?
    }

    /// What a caller's arrival did.
    private enum Joined { case cancelled, joined, started(Int) }

    private struct State: Sendable {
        /// Numbers both waiters and flights.
        var lastNumber = 0
        var flights: [Key: Flight] = [:]
    }

    // Invariant: a waiter's continuation is in `state` until it is taken out under the lock,
    // and whoever takes it resumes it (outside the lock), so it is resumed exactly once.
    private let state = Locked(State())
    /// What a caller that leaves gets.
    let cancelled: Failure

    init(cancelled: Failure) {
        self.cancelled = cancelled
    }

    /// The result of the running work for `key`, or of `work`, started now if none runs.
    /// `onJoin` is called once this caller waits for work another caller started.
    func value(
        for key: Key, onJoin: @Sendable () -> Void = {}, work: @escaping @Sendable () async -> Result<Value, Failure>
    ) async throws(Failure) -> Value {
        let waiter = state.withLock { state in
            state.lastNumber += 1
            return state.lastNumber
        }
        let result = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: Waiter) in
                join(key, waiter: waiter, continuation, onJoin: onJoin, work: work)
            }
        } onCancel: {
            leave(key, waiter: waiter)
        }
        return try result.get()
    }

    private func join(
        _ key: Key, waiter: Int, _ continuation: Waiter, onJoin: @Sendable () -> Void, work: @escaping @Sendable () async -> Result<Value, Failure>
    ) {
        let joined = state.withLock { state -> Joined in
            // Cancelled before it could join: the cancellation handler found nothing to resume.
            if Task.isCancelled { return .cancelled }
            if state.flights[key] != nil {
                state.flights[key]!.waiters[waiter] = continuation
                return .joined
            }
            state.lastNumber += 1
            state.flights[key] = Flight(number: state.lastNumber, waiters: [waiter: continuation])
            return .started(state.lastNumber)
        }
        switch joined {
        case .cancelled:
            continuation.resume(returning: .failure(cancelled))
        case .joined:
            onJoin()
        case .started(let number):
            let task = Task { [self] in finish(key, number: number, await work()) }
            let abandoned = state.withLock { state -> Bool in
                guard state.flights[key]?.number == number else { return true }
                state.flights[key]!.task = task
                return false
            }
            // Every waiter left before the task was recorded (or it already ended: harmless).
            if abandoned { task.cancel() }
        }
    }

    private func finish(_ key: Key, number: Int, _ result: Result<Value, Failure>) {
        let waiters = state.withLock { state -> [Waiter] in
            guard let flight = state.flights[key], flight.number == number else { return [] }
            state.flights[key] = nil
            return Array(flight.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: result) }
    }

    private func leave(_ key: Key, waiter: Int) {
        let (continuation, task) = state.withLock { state -> (Waiter?, Task<Void, Never>?) in
            guard let continuation = state.flights[key]?.waiters.removeValue(forKey: waiter) else { return (nil, nil) }
            guard state.flights[key]!.waiters.isEmpty else { return (continuation, nil) }
            let task = state.flights[key]!.task
            state.flights[key] = nil
            return (continuation, task)
        }
        continuation?.resume(returning: .failure(cancelled))
        task?.cancel()
    }
}
