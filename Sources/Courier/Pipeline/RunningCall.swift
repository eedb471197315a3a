/// An admitted request's work, as the pipeline holds it: the task that runs it, which the
/// pipeline cancels when it stops (shutdown, or the instance failed), and whether it did.
///
/// The task is set after the pipeline may already have admitted (or stopped) the call, since
/// the task itself asks for admission: whichever of `started` and `stop` comes second cancels.
final class RunningCall: Sendable {
    private struct State {
        var task: Task<Result<HTTPResponse, NetworkError>, Never>?
        var stopped = false
    }

    private let state = Locked(State())

    /// Whether the pipeline stopped the call (its answer is then the pipeline's unavailability).
    var wasStopped: Bool { state.withLock { $0.stopped } }

    /// The call's work runs in `task`.
    func started(_ task: Task<Result<HTTPResponse, NetworkError>, Never>) {
        let stopped = state.withLock { state in
            state.task = task
            return state.stopped
        }
        if stopped { task.cancel() }
    }

    /// The pipeline stops: the work is cancelled (its transport exchange with it).
    func stop() {
        let task = state.withLock { state in
            state.stopped = true
            return state.task
        }
        task?.cancel()
    }
}
