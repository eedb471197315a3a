import Synchronization

/// A time limit on a storage call that holds even when the call does not stop on
/// cancellation: a query sent on a connection that went silent waits for an answer that never
/// comes, and a task group would wait for it too. The caller gets its answer at the deadline;
/// the call, cancelled, ends whenever its connection does.
enum OperationDeadline {
    /// The call did not finish within its limit.
    struct Expired: Error {}

    /// `body`'s value, or ``Expired`` once `limit` has passed; `CancellationError` at once when
    /// the caller's task is cancelled. `body` runs in a task of its own, which inherits the
    /// caller's task-local values.
    static func run<Value: Sendable>(within limit: Duration, _ body: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let answer = Answer<Value>()
        let work = Task {
            do {
                answer.give(.success(try await body()))
            } catch {
                answer.give(.failure(error))
            }
        }
        let timer = Task {
            if (try? await Task.sleep(for: limit)) != nil { answer.give(.failure(Expired())) }
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

        /// Records `result` unless one was given before; later ones are dropped.
        func give(_ result: Result<Value, any Error>) {
            let waiter = state.withLock { state -> CheckedContinuation<Value, any Error>? in
                guard case .pending(let waiter) = state else { return nil }
                state = .given(result)
                return waiter
            }
            waiter?.resume(with: result)
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
