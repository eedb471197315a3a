/// The system's cryptographically secure generator.
public struct SystemRandomSource: RandomSource {
    /// Creates the system random source.
    public init() {}

    /// 64 bits from `SystemRandomNumberGenerator`.
    public func next() -> UInt64 {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }
}
