extension RequestEvent: CustomStringConvertible {
    /// The request's id and what happened, in a line; URLs come redacted, errors as their own
    /// description: `#3 finished: 200 after 2 attempts in 340 ms`.
    public var description: String {
        switch self {
        case .started(let id, let method, let url, let operation):
            "\(id) started: \(method) \(url)" + (operation.map { " (\($0))" } ?? "")
        case .attempt(let id, let number):
            "\(id) attempt \(number)"
        case .redirected(let id, let status, let url):
            "\(id) redirected: \(status) to \(url)"
        case .retrying(let id, let attempt, let delay, let reason):
            "\(id) retrying in \(delay.readable) after attempt \(attempt): \(reason)"
        case .finished(let id, let status, let attempts, let duration):
            "\(id) finished: \(status) after \(Self.attempts(attempts)) in \(duration.readable)"
        case .failed(let id, let error, let attempts, let duration):
            "\(id) failed after \(Self.attempts(attempts)) in \(duration.readable): \(error)"
        case .servedFromCache(let id, let method, let url, let status, let age):
            "\(id) served from cache: \(method) \(url), \(status), age \(age.components.seconds) s"
        case .shared(let id, let method, let url, let operation):
            "\(id) shares an identical query in flight: \(method) \(url)" + (operation.map { " (\($0))" } ?? "")
        case .circuitBreakerChanged(let id, let origin, let from, let to):
            "\(id) circuit breaker of \(origin): \(from) → \(to)"
        case .hedged(let id, let after):
            "\(id) hedged after \(after.readable)"
        case .shed(let id, let priority):
            "\(id) shed (\(priority))"
        case .concurrencyLimitChanged(let id, let origin, let limit):
            "\(id) concurrency limit of \(origin) now \(limit)"
        }
    }

    private static func attempts(_ count: Int) -> String {
        count == 1 ? "1 attempt" : "\(count) attempts"
    }
}
