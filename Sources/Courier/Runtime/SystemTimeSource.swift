import Foundation

/// Real time: `ContinuousClock` for `now` and sleeping, `Date()` for the wall clock.
public struct SystemTimeSource: TimeSource {
    private let origin = ContinuousClock.now

    /// Creates a time source whose `now` starts at zero.
    public init() {}

    /// Time since this source was created, from `ContinuousClock`.
    public var now: Duration { ContinuousClock.now - origin }
    /// `Date()`.
    public var currentDate: Date { Date() }

    /// Sleeps on `ContinuousClock`; throws `CancellationError` if the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        try await ContinuousClock().sleep(for: duration)
    }
}
