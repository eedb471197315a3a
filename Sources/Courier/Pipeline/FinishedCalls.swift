/// Where callers leave the calls they finished while no call waits for a slot. The pipeline
/// collects them whenever it handles a message, so a call costs it one message (`admit`), not
/// two. While calls wait for a slot a caller sends `finished` instead, so the next one starts
/// at once.
///
/// Invariant: the pipeline sets ``collect(waiting:)``'s count under the same lock that hands it
/// what was left, so a call finished after a wait began is always told as a message.
final class FinishedCalls: Sendable {
    /// A call that ended, with what it tells an adaptive limit (`nil`: nothing, e.g. cancelled).
    struct Call: Sendable {
        let id: RequestID
        let sample: LatencySample?
    }

    private struct State {
        var finished: [Call] = []
        var waiting = 0
    }

    private let state = Locked(State())

    /// A caller finished `id`: `true` if it must send `finished` (calls wait for a slot),
    /// `false` if `id` was left for the pipeline to collect.
    func leave(_ id: RequestID, sample: LatencySample?) -> Bool {
        state.withLock { state in
            if state.waiting > 0 { return true }
            state.finished.append(Call(id: id, sample: sample))
            return false
        }
    }

    /// What callers left since the last call; from now on they send `finished` while
    /// `waiting` (the calls waiting for a slot) is above zero.
    func collect(waiting: Int) -> [Call] {
        state.withLock { state in
            state.waiting = waiting
            var finished: [Call] = []
            swap(&finished, &state.finished)
            return finished
        }
    }
}
