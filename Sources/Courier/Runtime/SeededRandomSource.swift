/// A fast deterministic generator (SplitMix64): the same seed gives the same sequence.
/// Safe to share between tasks; the sequence is then shared too.
public final class SeededRandomSource: RandomSource, Sendable {
    private let state: Locked<UInt64>

    /// Creates a generator starting from `seed`.
    public init(seed: UInt64) {
        state = Locked(seed)
    }

    /// The next value of the SplitMix64 sequence.
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
