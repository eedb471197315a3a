/// The tasks one component instance starts that outlive a message (a drain, a refresh, a
/// debounce timer), run under the instance's supervision.
///
/// `ChildSpec.component(_:mailbox:…)` (the form whose `make` takes a scope) makes one scope
/// per instance and hands it to the instance as it is made. A component starts such work with
/// ``spawn(_:lifetime:_:)`` instead of `Task {}`:
///
/// - a spawned task that throws, or one meant to run until the instance stops that returns,
///   fails the instance, exactly as if its handler had thrown: the supervisor publishes
///   `failed` with the task's error and applies the child's restart policy;
/// - a task the component cancelled itself (a timer superseded, a drain stopped) ended on
///   request, however it ends;
/// - when the instance ends (it failed, was stopped or replaced, or shut down), the scope is
///   closed: its tasks still running are cancelled, and what they do afterwards is ignored.
///
/// The failure reaches the instance's loop between two batches of messages (its wake-up is a
/// stop marker for this incarnation on the mailbox): the loop is never cancelled (rule 1).
package final class SupervisedScope: Sendable {
    /// How long a spawned task is expected to run.
    package enum Lifetime: Sendable, Equatable {
        /// Until its work is done (a refresh call, a drain, one timer): returning is normal.
        case untilDone
        /// As long as the instance (a loop): returning on its own is a failure.
        case untilStopped
    }

    /// Why a task spawned `untilStopped` failed its instance: it returned on its own.
    package struct TaskEnded: Error, Equatable {
        /// The task's name, as given to ``spawn(_:lifetime:_:)``.
        package let task: String
    }

    private struct State {
        var tasks: [Int: Task<Void, Never>] = [:]
        var nextID = 0
        /// The first failure of a spawned task, until the instance's loop throws it.
        var failure: (any Error)?
        var isClosed = false
    }

    /// Invariant: `state` is only read and written under its lock.
    private let state = Locked(State())
    /// Wakes the instance's loop so that it sees the failure (even when no message comes).
    private let wake: @Sendable () -> Void

    /// A scope whose failure calls `wake` once, so that the instance's loop looks at it.
    package init(wake: @escaping @Sendable () -> Void) {
        self.wake = wake
    }

    /// Starts `body` in a task of this scope, off the component's actor; returns the task (to
    /// await or cancel it), or `nil` when the instance has already ended (nothing is started).
    @discardableResult
    package func spawn(
        _ name: String, lifetime: Lifetime = .untilDone, _ body: @escaping @Sendable () async throws -> Void
    ) -> Task<Void, Never>? {
        state.withLock { state -> Task<Void, Never>? in
            guard !state.isClosed else { return nil }
            let id = state.nextID
            state.nextID += 1
            // Made under the lock, so the task is registered before it can report its end.
            let task = Task.detached { [self] in
                let outcome: Result<Void, any Error>
                do {
                    try await body()
                    outcome = .success(())
                } catch {
                    outcome = .failure(error)
                }
                // Only whoever holds the task (its component, or `close`) can have cancelled it.
                self.ended(id, name: name, lifetime: lifetime, outcome: outcome, cancelled: Task.isCancelled)
            }
            state.tasks[id] = task
            return task
        }
    }

    /// Throws the failure of a spawned task, if one failed. Called by the instance's loop.
    package func checkFailure() throws {
        if let failure = state.withLock({ $0.failure }) { throw failure }
    }

    /// Ends the scope with its instance: cancels the tasks still running; their ends no
    /// longer count. Idempotent.
    package func close() {
        let tasks = state.withLock { state -> [Task<Void, Never>] in
            state.isClosed = true
            defer { state.tasks = [:] }
            return Array(state.tasks.values)
        }
        for task in tasks { task.cancel() }
    }

    /// What a spawned task's end means for its instance: the error that fails it, or `nil`.
    package static func failure(
        of outcome: Result<Void, any Error>, task name: String, lifetime: Lifetime, cancelled: Bool, scopeClosed: Bool
    ) -> (any Error)? {
        // Stopped on request, or the instance has ended (its successor does not inherit it).
        if cancelled || scopeClosed { return nil }
        switch (outcome, lifetime) {
        case (.failure(let error), _): return error
        case (.success, .untilStopped): return TaskEnded(task: name)
        case (.success, .untilDone): return nil
        }
    }

    private func ended(_ id: Int, name: String, lifetime: Lifetime, outcome: Result<Void, any Error>, cancelled: Bool) {
        let failedNow = state.withLock { state -> Bool in
            state.tasks[id] = nil
            guard let failure = Self.failure(
                    of: outcome, task: name, lifetime: lifetime, cancelled: cancelled, scopeClosed: state.isClosed),
                  state.failure == nil else { return false }
            state.failure = failure
            return true
        }
        if failedNow { wake() }
    }
}
