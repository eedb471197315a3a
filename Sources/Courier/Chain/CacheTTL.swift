import Foundation

/// How long a response without its own freshness information (no `max-age`, no `Expires`) stays
/// fresh in the cache. A response's own `Cache-Control: max-age` or `Expires` always wins.
public enum CacheTTL: Sendable, Equatable {
    /// Neither stored nor read from the cache (the request goes to the network; the response is
    /// not kept).
    case noCache
    /// The cache's default time to live (``APIClient/Configuration/Caching/defaultTTL``, 300 s).
    case defaultTTL
    /// This many seconds.
    case custom(seconds: Int)
    /// Until the next midnight in `timeZone` (e.g. a daily menu).
    case untilMidnight(TimeZone)

    /// The lifetime in seconds for a response stored at `date`, or `nil` for ``noCache``.
    func seconds(defaultTTL: Int, storedAt date: Date) -> Int? {
        switch self {
        case .noCache: return nil
        case .defaultTTL: return defaultTTL
        case .custom(let seconds): return max(0, seconds)
        case .untilMidnight(let timeZone):
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = timeZone
            let midnight = calendar.nextDate(after: date, matching: DateComponents(hour: 0, minute: 0, second: 0), matchingPolicy: .nextTime)
            return midnight.map { max(0, Int($0.timeIntervalSince(date).rounded(.down))) } ?? defaultTTL
        }
    }
}
