import Foundation

/// The delay between attempts, before jitter and the policy's cap.
public enum BackoffStrategy: Sendable, Equatable {
    /// Retry at once.
    case immediate
    /// The same delay every time.
    case constant(Duration)
    /// `base + increment × (attempt − 1)`.
    case linear(base: Duration, increment: Duration)
    /// `base × multiplier^(attempt − 1)`.
    case exponential(base: Duration, multiplier: Double)

    /// The delay after attempt number `attempt` (1-based) failed.
    public func delay(afterAttempt attempt: Int) -> Duration {
        let step = max(0, attempt - 1)
        switch self {
        case .immediate: return .zero
        case .constant(let delay): return delay
        case .linear(let base, let increment): return base + increment * step
        case .exponential(let base, let multiplier):
            // Computed in seconds and clamped (to ~31 years) so a large step cannot overflow
            // Duration; the policy's maximumDelay caps it far lower anyway.
            let seconds = base.inSeconds * pow(multiplier, Double(step))
            // NaN (a NaN or infinite multiplier) or a negative value means no usable delay.
            guard seconds.isFinite || seconds == .infinity else { return .zero }
            return .seconds(max(0, min(seconds, 1e9)))
        }
    }

    /// The delay after attempt `attempt`, capped at `maximum` and never negative, then with
    /// full jitter (scaled by `randomUnit`, a uniform value in `0 ..< 1`) when `jitter` is set:
    /// what ``RetryPolicy`` and ``WebSocketReconnection`` wait.
    func delay(afterAttempt attempt: Int, cappedAt maximum: Duration, jitter: Bool, randomUnit: Double) -> Duration {
        let delay = max(.zero, min(delay(afterAttempt: attempt), maximum))
        return jitter ? delay * min(max(randomUnit, 0), 1) : delay
    }
}
