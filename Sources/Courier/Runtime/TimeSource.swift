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

/// Real time: `ContinuousClock` for `now` and sleeping, `Date()` for the wall clock.
public struct SystemTimeSource: TimeSource {
    private let origin = ContinuousClock.now

    /// Creates a time source whose `now` starts at zero.
    public init() {}

    public var now: Duration { ContinuousClock.now - origin }
    public var currentDate: Date { Date() }

    public func sleep(for duration: Duration) async throws {
        try await ContinuousClock().sleep(for: duration)
    }
}

extension Duration {
    /// The duration in seconds, as a `Double` (for `TimeInterval` APIs and arithmetic).
    package var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}

/// Where Courier draws randomness (jitter): injected so tests can seed it.
public protocol RandomSource: Sendable {
    /// The next 64 random bits.
    func next() -> UInt64
}

extension RandomSource {
    /// A uniformly distributed value in `0 ..< 1`.
    public func nextUnit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }
}

/// The system's cryptographically secure generator.
public struct SystemRandomSource: RandomSource {
    /// Creates the system random source.
    public init() {}

    public func next() -> UInt64 {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }
}

/// A fast deterministic generator (SplitMix64): the same seed gives the same sequence.
/// Safe to share between tasks; the sequence is then shared too.
public final class SeededRandomSource: RandomSource, Sendable {
    private let state: Locked<UInt64>

    /// Creates a generator starting from `seed`.
    public init(seed: UInt64) {
        state = Locked(seed)
    }

    public func next() -> UInt64 {
        var z = state.withLock { state -> UInt64 in
            state &+= 0x9E37_79B9_7F4A_7C15
            return state
        }
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
