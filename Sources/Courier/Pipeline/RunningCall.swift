/// An admitted call as the pipeline holds it: the caller's task while the call runs in it, so
/// that the pipeline can stop the call when it stops (shutdown, or the instance failed), and
/// whether it did.
///
/// `@unchecked Sendable`: the task handle is read and written only under `lock`, and only
/// between ``enter()`` and ``leave()`` (while the call runs in that task, which is alive), so
/// a stop never reaches a task the call already left. `UnsafeCurrentTask.cancel()` may be
/// called from any thread, as `Task.cancel()` may.
final class RunningCall: @unchecked Sendable {
    private struct State {
        var task: UnsafeCurrentTask?
        var stopped = false
    }

    private let lock = Lock()
    private nonisolated(unsafe) var state = State()

    /// Whether the pipeline stopped the call (its answer is then the pipeline's unavailability).
    var wasStopped: Bool { lock.withLock { state.stopped } }

    /// The call runs from now on in the calling task; stopped already, it is cancelled at once.
    func enter() {
        withUnsafeCurrentTask { task in
            let stopped = lock.withLock {
                state.task = task
                return state.stopped
            }
            if stopped { task?.cancel() }
        }
    }

    /// The call left its task: a later stop does not touch it.
    func leave() {
        lock.withLock { state.task = nil }
    }

    /// The pipeline stops: the call's task is cancelled (its transport exchange with it).
    func stop() {
        lock.withLock {
            state.stopped = true
            state.task?.cancel()
        }
    }
}
