extension Duration {
    /// The duration in seconds, as a `Double` (for `TimeInterval` APIs and arithmetic).
    package var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
