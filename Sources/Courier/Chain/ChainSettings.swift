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
    /// What an error status's body is decoded into, unless the call names its own type.
    let errorBody: (any (Decodable & Sendable).Type)?
    /// The client's JSON decoder, which an error body is decoded with.
    let decoder: JSONDecoder

    init(
        baseURL: URL?, logger: (any NetworkLogger)?, redaction: Redaction, clock: any TimeSource, random: any RandomSource,
        maxResponseBytes: Int, events: EventBroadcaster<RequestEvent>, errorBody: (any (Decodable & Sendable).Type)? = nil,
        decoder: JSONDecoder = JSONDecoder()
    ) {
        self.baseURL = baseURL
        baseOrigin = baseURL.flatMap(HTTPOrigin.init)
        self.logger = logger
        self.redaction = redaction
        self.clock = clock
        self.random = random
        self.maxResponseBytes = max(0, maxResponseBytes)
        self.events = events
        self.errorBody = errorBody
        self.decoder = decoder
    }
}
