import Foundation

/// Counts one body's bytes and hands ``TransferProgress`` to a handler, at most once per
/// `interval` (and always for the first bytes and the last), so that progress never costs
/// more than the transfer however small its chunks.
///
/// Called from whichever thread moves the bytes (the transport's for an upload, the reader's
/// task for a download); the handler is called outside the lock.
final class ProgressReporter: Sendable {
    /// The default shortest time between two reports.
    static let defaultInterval: Duration = .milliseconds(100)

    private struct State {
        var completed: Int64
        var total: Int64?
        /// When the last report was made; `nil` before the first.
        var lastReport: Duration?
        /// The completed count last reported (`-1` before the first report).
        var reported: Int64 = -1
    }

    private let handler: @Sendable (TransferProgress) -> Void
    private let interval: Duration
    private let now: @Sendable () -> Duration
    private let state: Locked<State>

    init(
        total: Int64?, completed: Int64 = 0, interval: Duration = ProgressReporter.defaultInterval,
        now: (@Sendable () -> Duration)? = nil,
        handler: @escaping @Sendable (TransferProgress) -> Void
    ) {
        self.handler = handler
        self.interval = interval
        let origin = ContinuousClock.now
        self.now = now ?? { ContinuousClock.now - origin }
        state = Locked(State(completed: completed, total: total))
    }

    /// Adds `count` bytes; reports when the interval has passed since the last report, for the
    /// first bytes, and when the total is reached.
    func advance(by count: Int) {
        guard count > 0 else { return }
        let report: TransferProgress? = state.withLock { state in
            state.completed += Int64(count)
            let time = now()
            let due = state.lastReport.map { time - $0 >= interval } ?? true
            guard due || state.completed == state.total else { return nil }
            state.lastReport = time
            state.reported = state.completed
            return TransferProgress(completedBytes: state.completed, totalBytes: state.total)
        }
        if let report { handler(report) }
    }

    /// Starts again from 0 (a body sent again from its start), reporting it.
    func restart() {
        let report = state.withLock { state in
            state.completed = 0
            state.reported = 0
            state.lastReport = now()
            return TransferProgress(completedBytes: 0, totalBytes: state.total)
        }
        handler(report)
    }

    /// Reports the count reached, unless that was the last report: the body ended.
    func finish() {
        let report: TransferProgress? = state.withLock { state in
            guard state.reported != state.completed else { return nil }
            state.reported = state.completed
            return TransferProgress(completedBytes: state.completed, totalBytes: state.total)
        }
        if let report { handler(report) }
    }
}
