import Foundation

/// A Server-Sent Events stream: an `AsyncSequence` of the ``ServerSentEvent``s of a
/// `text/event-stream`, reconnecting as a browser's `EventSource` does. Made by
/// ``APIClient/events(for:retryDelay:maxConsecutiveFailures:stallTimeout:maxEventBytes:whenStreamEnds:)``.
///
/// ```swift
/// for try await event in client.events(for: Endpoint<Data>(path: "prices", version: .v1)) {
///     show(event.data)
/// }
/// ```
///
/// - **Connections**: each iterator opens its own connection at its first `next()`, through
///   the client's chain as ``APIClient/bytes(for:stallTimeout:maxBytes:)`` does (interceptors,
///   the security guard, auth and the 401 renewal, logging; never the cache), with
///   `Accept: text/event-stream` (unless the endpoint names another), `Cache-Control: no-cache`,
///   and `Last-Event-ID` once an ID is known (an endpoint's own `Last-Event-ID` header is the
///   ID to resume from).
/// - **Reconnection**: when the stream ends (unless the caller said ``StreamEnd/finish``), or breaks (``NetworkError/noConnection(underlying:)``,
///   ``NetworkError/connectionLost(host:port:underlying:)``, ``NetworkError/cannotConnect(host:port:reason:underlying:)``
///   but for a TLS handshake, ``NetworkError/malformedResponse(_:underlying:)``, ``NetworkError/timeout(_:underlying:)``,
///   a stall past the stall timeout included), the iterator waits the reconnection delay (the
///   server's last `retry`, else the `retryDelay` given) on the client's clock, then connects
///   again. An event left incomplete is discarded. The pipeline does not retry these requests
///   itself (unless the endpoint's options set a retry policy): reconnecting is this sequence's
///   job.
/// - **The end**: a `204 No Content` ends the sequence (the server's way to say "do not
///   reconnect"), and so does a stream's normal end with ``StreamEnd/finish`` (a finite stream,
///   graphql-sse). Any other status but 200, a `Content-Type` other than `text/event-stream`
///   (``NetworkError/invalidResponse(_:)``), an error status (as ``APIClient/send(_:)`` throws
///   them), a line or event over `maxEventBytes` (``NetworkError/responseTooLarge(limit:)``),
///   and `maxConsecutiveFailures` connection attempts in a row that got no response, throw.
/// - **Cancellation**: cancelling the consuming task, or dropping the iterator (leaving a
///   `for` loop), closes the connection and stops reconnecting; a cancelled `next()` throws
///   ``NetworkError/cancelled``.
public struct ServerSentEvents: AsyncSequence, Sendable {
    /// An event, as dispatched.
    public typealias Element = ServerSentEvent
    /// What ends the sequence early.
    public typealias Failure = NetworkError

    /// The default reconnection delay, until the server sets one with `retry`: 3 s, as browsers.
    public static let defaultRetryDelay: Duration = .seconds(3)

    /// What a stream's normal end (the server closed the body cleanly) does.
    public enum StreamEnd: Sendable, Hashable {
        /// Connect again after the reconnection delay, as a browser's `EventSource` does: the
        /// server's stream is endless and an end is a hiccup.
        case reconnect
        /// End the sequence: the server sends a finite stream and its end is the end. A broken
        /// connection (reset, stalled, cut mid-event) still reconnects.
        case finish
    }

    /// How the connections are made and read, as given to `events(for:)`.
    struct Settings: Sendable {
        var retryDelay: Duration
        var maxConsecutiveFailures: Int?
        var stallTimeout: Duration
        var maxEventBytes: Int
        var streamEnd = StreamEnd.reconnect
    }

    /// How a connection is made: the client's chain, as a streamed call.
    let call: StreamedCall
    /// The reconnection delays' clock.
    let clock: any TimeSource
    /// The request every connection sends (its `Last-Event-ID` set per connection), or why the
    /// endpoint could not be made into one (thrown by the first `next()`).
    let request: Result<HTTPRequest, NetworkError>
    let options: RequestOptions
    let settings: Settings
    /// What Courier's own callers (GraphQL over SSE) add to each connection's call.
    var callSettings = CallSettings()

    /// An iterator: the first `next()` opens a connection of its own.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(events: self)
    }

    /// Reads the events of one connection after another; see ``ServerSentEvents``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private let events: ServerSentEvents
        /// Kept across connections: the last event ID and the server's reconnection time.
        private var parser: ServerSentEventParser
        /// The open stream's body, `nil` between connections.
        private var body: ResponseBytes?
        private var reader: ResponseBytes.AsyncIterator?
        /// Events parsed from the last chunk and not yet returned, from `nextReady` on.
        private var ready: [ServerSentEvent] = []
        private var nextReady = 0
        /// Connection attempts in a row that got no response.
        private var failures = 0
        private var finished = false
        /// The head of the open stream's response (its body is being read).
        private(set) var response: HTTPResponse?

        init(events: ServerSentEvents) {
            self.events = events
            let resumeFrom = (try? events.request.get())?.headers["Last-Event-ID"] ?? ""
            parser = ServerSentEventParser(maxEventBytes: events.settings.maxEventBytes, lastEventID: resumeFrom)
        }

        /// The next event, connecting and reconnecting as needed; `nil` once the server ended
        /// the stream with a 204 (or, with ``StreamEnd/finish``, at all).
        public mutating func next() async throws(NetworkError) -> ServerSentEvent? {
            do throws(NetworkError) {
                return try await advance()
            } catch {
                finish()
                throw error
            }
        }

        private mutating func advance() async throws(NetworkError) -> ServerSentEvent? {
            while true {
                if nextReady < ready.count {
                    defer { nextReady += 1 }
                    return ready[nextReady]
                }
                if finished { return nil }
                guard var reader = self.reader else {
                    try await connect()
                    continue
                }
                let chunk: Data?
                do throws(NetworkError) {
                    chunk = try await reader.next()
                } catch where Self.reconnects(after: error) {
                    try await reconnect()
                    continue
                }
                guard let chunk else {
                    if events.settings.streamEnd == .finish {
                        // The event left incomplete by the end is dropped, as on a reconnection.
                        finish()
                        return nil
                    }
                    try await reconnect()
                    continue
                }
                self.reader = reader
                ready = try parser.parse(chunk)
                nextReady = 0
            }
        }

        /// Opens a connection: on a 200 `text/event-stream`, its body becomes the one read; a 204
        /// finishes; a connection attempt that got no response waits and tries again, up to
        /// `maxConsecutiveFailures` in a row.
        private mutating func connect() async throws(NetworkError) {
            guard !Task.isCancelled else { throw .cancelled }
            var request = try events.request.get()
            request.headers.remove(name: "Last-Event-ID")
            if !parser.lastEventID.isEmpty { request.headers.add(name: "Last-Event-ID", value: parser.lastEventID) }
            let response: HTTPResponse
            let body: ResponseBytes
            do throws(NetworkError) {
                (response, body) = try await events.call.bytes(
                    for: request, options: events.options, settings: events.callSettings, stallTimeout: events.settings.stallTimeout,
                    maxBytes: .max)
            } catch where Self.reconnects(after: error) {
                failures += 1
                if let limit = events.settings.maxConsecutiveFailures, failures >= limit { throw error }
                try await wait()
                return
            }
            failures = 0
            if response.status == 204 {
                body.cancel()
                finished = true
                return
            }
            if let refusal = Self.refusal(of: response) {
                body.cancel()
                throw refusal
            }
            self.body = body
            self.response = response
            reader = body.makeAsyncIterator()
        }

        /// The stream ended or broke: drop the incomplete event, wait, connect again.
        private mutating func reconnect() async throws(NetworkError) {
            closeConnection()
            try await wait()
            try await connect()
        }

        /// Waits the reconnection delay on the client's clock.
        private func wait() async throws(NetworkError) {
            do {
                try await events.clock.sleep(for: parser.reconnectionTime ?? events.settings.retryDelay)
            } catch {
                throw .cancelled
            }
        }

        private mutating func closeConnection() {
            body?.cancel()
            body = nil
            reader = nil
            parser.endOfStream()
        }

        /// Closes the connection and ends the sequence: its next `next()` returns `nil`.
        mutating func finish() {
            closeConnection()
            finished = true
        }

        /// Whether an error ends only the connection (the sequence reconnects), not the sequence.
        private static func reconnects(after error: NetworkError) -> Bool {
            switch error {
            case .noConnection, .connectionLost, .malformedResponse, .timeout: true
            case .cannotConnect(_, _, let reason, _): reason != .tlsHandshake
            default: false
            }
        }

        /// Why a 2xx response does not open an event stream, if it does not.
        private static func refusal(of response: HTTPResponse) -> NetworkError? {
            guard response.status == 200 else {
                return .invalidResponse("an event stream must answer 200 (or 204 to stop), not \(response.status)")
            }
            let contentType = response.headers["Content-Type"] ?? ""
            let essence = contentType.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces).lowercased()
            guard essence == "text/event-stream" else {
                return .invalidResponse("an event stream must be text/event-stream, not \(contentType.isEmpty ? "untyped" : contentType)")
            }
            return nil
        }
    }
}
