/// A one-way gate: closed until ``open()``, then open for good. Tasks can wait for it, with
/// cancellation. The supervisor uses one per child instance to know when it has exited;
/// `ManualClock` one per task waiting for sleepers.
package final class Latch: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextID = 0
    }

    private let state = Locked(State())

    /// A closed gate.
    package init() {}

    /// Opens the gate and releases every waiter. Idempotent.
    package func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    var isOpen: Bool { state.withLock { $0.isOpen } }

    /// Returns once the gate is open, or as soon as the calling task is cancelled.
    package func wait() async {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.isOpen || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }

    /// Waits until the gate opens or `deadline` passes on `clock`; returns whether it opened.
    func wait(atMost deadline: Duration, clock: any TimeSource) async -> Bool {
        if isOpen { return true }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.wait(); return self.isOpen }
            group.addTask { try? await clock.sleep(for: deadline); return self.isOpen }
            let opened = await group.next() ?? false
            group.cancelAll()
            return opened
        }
    }
}
