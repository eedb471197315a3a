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
