import Foundation

/// What every call of one client shares: its base URL (worked out once), logger, clock and
/// limits, and the event stream the steps publish to.
final class ChainSettings: Sendable {
    let baseURL: URL?
    let baseOrigin: HTTPOrigin?
    let logger: (any NetworkLogger)?
    let redaction: Redaction
    let clock: any TimeSource
    let random: any RandomSource
    let maxResponseBytes: Int
    let events: EventBroadcaster<RequestEvent>

    init(
        baseURL: URL?, logger: (any NetworkLogger)?, redaction: Redaction, clock: any TimeSource, random: any RandomSource,
        maxResponseBytes: Int, events: EventBroadcaster<RequestEvent>
    ) {
        self.baseURL = baseURL
        baseOrigin = baseURL.flatMap(HTTPOrigin.init)
        self.logger = logger
        self.redaction = redaction
        self.clock = clock
        self.random = random
        self.maxResponseBytes = max(0, maxResponseBytes)
        self.events = events
    }
}
