import Foundation

/// Where Courier reads time and waits: injected so that backoff, timeouts, expiry and restart
/// delays run instantly and deterministically in tests (see `CourierTesting.ManualClock`).
public protocol TimeSource: Sendable {
    /// Monotonic time since an arbitrary origin; only differences are meaningful.
    var now: Duration { get }
    /// The wall-clock date, for HTTP dates (`Retry-After`, `Expires`).
    var currentDate: Date { get }
    /// Suspends for `duration`. Throws `CancellationError` if the task is cancelled first.
    func sleep(for duration: Duration) async throws
}
