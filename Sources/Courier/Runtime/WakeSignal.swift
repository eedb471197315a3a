/// A wake-up a sleeping task can be given early: ``wait(atMost:clock:)`` sleeps for a delay
/// on the clock unless ``wake()`` is called first (or was called since the last wait ended).
/// The connectivity probe sleeps on one, so the monitor can ask for a probe now.
///
/// Wakes do not pile up: any number of them before the sleeper looks again end one wait, and
/// ``clear()`` forgets those the sleeper has already acted on.
final class WakeSignal: Sendable {
    // Invariant: the latch is read and replaced only under the lock; an opened latch is
    // replaced (by `clear` or the wait it ended) before the sleeper waits again.
    private let latch = Locked(Latch())

    init() {}

    /// Ends the current wait now, or the next one at once if no task waits.
    func wake() {
        latch.withLock { $0 }.open()
    }

    /// Forgets the wakes given so far: what they asked for is about to happen.
    func clear() {
        latch.withLock { if $0.isOpen { $0 = Latch() } }
    }

    /// Sleeps for `delay` on `clock`, or less if woken; returns whether it was woken. Returns
    /// at once if the calling task is cancelled.
    func wait(atMost delay: Duration, clock: any TimeSource) async -> Bool {
        let current = latch.withLock { $0 }
        let woken = await current.wait(atMost: delay, clock: clock)
        if woken { latch.withLock { if $0 === current { $0 = Latch() } } }
        return woken
    }
}
