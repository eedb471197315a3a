/// What one finished call tells its origin's ``AdaptiveLimit``: how long it ran once admitted,
/// and whether it was dropped (it timed out, or the origin refused it as overloaded).
struct LatencySample: Sendable, Equatable {
    let rtt: Duration
    let dropped: Bool
}
