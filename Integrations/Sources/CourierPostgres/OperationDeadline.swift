import Synchronization

/// A time limit on a storage call that holds even when the call does not stop on
/// cancellation: a query sent on a connection that went silent waits for an answer that never
/// comes, and a task group would wait for it too. The caller gets its answer at the deadline,
/// and `onExpiry` can end the call's work (close its connection).
enum OperationDeadline {
    /// The call did not finish within its limit.
    struct Expired: Error {}

    /// `body`'s value, or ``Expired`` once `limit` has passed (then `onExpiry` is called);
    /// `CancellationError` at once when the caller's task is cancelled. `body` runs in a task of
    /// its own, which inherits the caller's task-local values, and is cancelled when the caller
    /// has its answer.
    static func run<Value: Sendable>(
        within limit: Duration, _ body: @escaping @Sendable () async throws -> Value, onExpiry: @escaping @Sendable () -> Void = {}
    ) async throws -> Value {
        let answer = Answer<Value>()
        let work = Task {
            do {
                answer.give(.success(try await body()))
            } catch {
                answer.give(.failure(error))
            }
        }
        let timer = Task {
            if (try? await Task.sleep(for: limit)) != nil, answer.give(.failure(Expired())) { onExpiry() }
        }
        defer {
            work.cancel()
            timer.cancel()
        }
        return try await withTaskCancellationHandler {
            try await answer.value()
        } onCancel: {
            answer.give(.failure(CancellationError()))
        }
    }

    /// The first result given, handed to the one caller waiting for it.
    private final class Answer<Value: Sendable>: Sendable {
        private enum State {
            case pending(CheckedContinuation<Value, any Error>?)
            case given(Result<Value, any Error>)
        }

        // Invariant: the continuation is resumed once, by whoever moves the state to `given`
        // while it is stored, or by `value()` when the result came first.
        private let state = Mutex(State.pending(nil))

        /// Records `result` unless one was given before (later ones are dropped); says whether
        /// it was the first.
        @discardableResult
        func give(_ result: Result<Value, any Error>) -> Bool {
            let (first, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Value, any Error>?) in
                guard case .pending(let waiter) = state else { return (false, nil) }
                state = .given(result)
                return (true, waiter)
            }
            waiter?.resume(with: result)
            return first
        }

        /// Waits for the first result given.
        func value() async throws -> Value {
            try await withCheckedThrowingContinuation { continuation in
                let given = state.withLock { state -> Result<Value, any Error>? in
                    switch state {
                    case .pending:
                        state = .pending(continuation)
                        return nil
                    case .given(let result):
                        return result
                    }
                }
                if let given { continuation.resume(with: given) }
            }
        }
    }
}
