/// When the connectivity probe runs next: every `interval` while the health URL answers; after
/// a failure, soon (`retryDelay`), then backing off (doubling) up to `interval` while it keeps
/// failing, so an offline device is not woken every second.
struct ProbeSchedule: Sendable, Equatable {
    var interval: Duration
    var retryDelay: Duration

    /// The delay before the next probe after `failures` consecutive failures (0: the last one
    /// succeeded).
    func delay(afterFailures failures: Int) -> Duration {
        guard failures > 0 else { return interval }
        let doubled = retryDelay.inSeconds * Double(1 << min(failures - 1, 20))
        return min(.seconds(doubled), max(interval, retryDelay))
    }
}
