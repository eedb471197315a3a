/// One event of a `text/event-stream` (Server-Sent Events), as the HTML standard's event stream
/// interpretation dispatches it: what ``APIClient/events(for:retryDelay:maxConsecutiveFailures:stallTimeout:maxEventBytes:whenStreamEnds:)``
/// yields and ``ServerSentEventParser`` returns.
///
/// ```
/// event: price
/// id: 42
/// data: {"symbol": "ACME",
/// data:  "price": 12.5}
///
/// ```
/// is the event of type `price`, id `42`, whose data is the two `data` lines joined by a line
/// feed.
public struct ServerSentEvent: Sendable, Hashable {
    /// The event's type: its block's `event` field, or `message` when the block has none.
    public var type: String
    /// The event's `data` lines, joined by line feeds (`\n`), without a final one.
    public var data: String
    /// The last event ID when the event was dispatched: its block's `id` field, or the one an
    /// earlier block set (IDs persist until the server sets another); empty when none was set.
    /// What a reconnection sends as `Last-Event-ID`.
    public var id: String
    /// The reconnection delay the event's block set with a `retry` field, if it had one.
    public var retry: Duration?

    /// Creates an event; by default of type `message`, with no ID and no `retry`.
    public init(type: String = "message", data: String, id: String = "", retry: Duration? = nil) {
        self.type = type
        self.data = data
        self.id = id
        self.retry = retry
    }
}
