/// A circuit breaker's state, as ``RequestEvent/circuitBreakerChanged(_:origin:from:to:)``
/// reports it (see ``CircuitBreakerPolicy``).
public enum CircuitBreakerState: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Attempts go, and their outcomes are counted.
    case closed
    /// Attempts fail at once with ``NetworkError/circuitOpen(origin:retryAfter:)`` for `for`
    /// from the change (the open duration with its jitter when it opens; what is left of it,
    /// usually nothing, when it turns half-open), after which probes go.
    case open(for: Duration)
    /// A few probes go; the rest are refused until they end.
    case halfOpen

    /// `closed`, `open for 30.5 s`, `half-open`.
    public var description: String {
        switch self {
        case .closed: "closed"
        case .open(let duration): "open for \(duration.readable)"
        case .halfOpen: "half-open"
        }
    }
}
