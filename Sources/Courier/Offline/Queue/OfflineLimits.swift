/// The offline queue's limits, resolved from ``APIClient/Configuration/Offline``.
struct OfflineLimits: Sendable {
    /// Replays with a verdict before an item becomes a dead letter.
    var maxAttempts: Int
    /// How long an item may wait before it expires.
    var expiry: Duration
    /// The delay before replaying an item whose last replay failed (by attempts made).
    var backoff: BackoffStrategy
    /// The most items stored; an enqueue beyond it fails with ``NetworkError/queueFull(limit:)``.
    var maxItems: Int
}
