import Synchronization

/// The chain's contract for one step in one attempt: `proceed` is called at most once.
final class ProceedOnce: Sendable {
    private let claimed = Atomic<Bool>(false)

    /// `true` the first time only.
    func claim() -> Bool {
        !claimed.exchange(true, ordering: .relaxed)
    }
}
