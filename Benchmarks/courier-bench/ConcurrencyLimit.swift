import Courier

/// At most `limit` callers inside at once; the rest wait their turn in arrival order. The
/// fixed-rate rows put one in front of the transport, so that it holds back requests beyond
/// 256 in flight as the pipeline's admission and the raw loop's queue do (libcurl's own queue
/// of waiting transfers is walked on every call, so letting thousands wait there would measure
/// that instead).
final class ConcurrencyLimit: Sendable {
    private struct State: Sendable {
        var running = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
        var next = 0
    }

    private let limit: Int
    private let state = Locked(State())

    init(_ limit: Int) {
        self.limit = limit
    }

    /// Runs `operation` once a place is free.
    func run(_ operation: @Sendable () async throws -> Void) async throws {
        let admitted = state.withLock { state in
            guard state.running < limit else { return false }
            state.running += 1
            return true
        }
        if !admitted {
            // Checked again with the wait queued under the same lock, so no release slips
            // between; a releaser hands its place over (running stays as it is).
            await withCheckedContinuation { continuation in
                let admittedNow = state.withLock { state -> Bool in
                    if state.running < limit {
                        state.running += 1
                        return true
                    }
                    state.waiting.append(continuation)
                    return false
                }
                if admittedNow { continuation.resume() }
            }
        }
        defer { release() }
        try await operation()
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.next < state.waiting.count else {
                state.running -= 1
                return nil
            }
            let continuation = state.waiting[state.next]
            state.next += 1
            if state.next > 1024, state.next * 2 > state.waiting.count {
                state.waiting.removeFirst(state.next)
                state.next = 0
            }
            return continuation
        }
        next?.resume()
    }
}
