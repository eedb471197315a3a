import Foundation

extension APIClient {
    /// The Server-Sent Events of `endpoint`: its `text/event-stream` read as the HTML standard
    /// says, reconnecting when the stream ends or breaks, until the server answers 204 or the
    /// consuming task is cancelled; or, with `whenStreamEnds: .finish`, until the stream ends.
    ///
    /// ```swift
    /// for try await event in client.events(for: Endpoint<Data>(path: "notifications", version: .v1)) {
    ///     if event.type == "message" { show(event.data) }
    /// }
    /// ```
    ///
    /// Each connection passes the chain as ``bytes(for:stallTimeout:maxBytes:)`` does (never the
    /// cache); see ``ServerSentEvents`` for the headers sent, what reconnects and what ends the
    /// sequence. Nothing is sent until the sequence is iterated; an endpoint that cannot be
    /// built, or arguments out of range, throw from the first `next()`.
    /// - Parameters:
    ///   - endpoint: the stream's request (usually a `GET`), its headers with those
    ///     ``ServerSentEvents`` adds.
    ///   - retryDelay: the wait before reconnecting until the server sets one with `retry`
    ///     (default 3 s, as browsers); on the client's ``Configuration/clock``.
    ///   - maxConsecutiveFailures: when set (1 or more), the sequence throws the error of the
    ///     connection attempt that makes this many in a row without a response (no connection,
    ///     a broken or late head); a connection that opens starts the count again. `nil` (the
    ///     default) reconnects until cancelled, as browsers do.
    ///   - stallTimeout: the longest wait for the next bytes of an open stream; past it the
    ///     stream counts as broken and the sequence reconnects. Servers that are quiet for long
    ///     should send comments (`:`) as keep-alives more often than this.
    ///   - maxEventBytes: the longest line and the largest event data accepted, in bytes; past
    ///     it the sequence throws ``NetworkError/responseTooLarge(limit:)`` rather than hold
    ///     more. The stream as a whole has no size limit.
    ///   - whenStreamEnds: what the stream's normal end does: ``ServerSentEvents/StreamEnd/reconnect``
    ///     (the default, as browsers) or ``ServerSentEvents/StreamEnd/finish``, which ends the
    ///     sequence (a server that sends a finite stream). A broken stream reconnects either way.
    public func events<Value>(
        for endpoint: Endpoint<Value>,
        retryDelay: Duration = ServerSentEvents.defaultRetryDelay,
        maxConsecutiveFailures: Int? = nil,
        stallTimeout: Duration = APIClient.defaultStallTimeout,
        maxEventBytes: Int = ServerSentEventParser.defaultMaxEventBytes,
        whenStreamEnds: ServerSentEvents.StreamEnd = .reconnect
    ) -> ServerSentEvents {
        var untyped = endpoint.untyped
        untyped.accept = "text/event-stream"
        // No retries of the pipeline's own beneath the sequence's reconnections, unless asked.
        var options = untyped.options
        options.retryPolicy = options.retryPolicy ?? .never
        let settings = ServerSentEvents.Settings(
            retryDelay: retryDelay, maxConsecutiveFailures: maxConsecutiveFailures, stallTimeout: stallTimeout,
            maxEventBytes: maxEventBytes, streamEnd: whenStreamEnds)
        let request = Result { () throws(NetworkError) -> HTTPRequest in
            guard retryDelay >= .zero, maxEventBytes > 0, (maxConsecutiveFailures ?? 1) >= 1 else {
                throw .invalidRequest("an event stream needs a retry delay of 0 or more, maxEventBytes over 0, and maxConsecutiveFailures of 1 or more")
            }
            var request = try makeRequest(untyped)
            // A proxy or cache on the way must not answer from storage, nor hold the stream.
            if !request.headers.contains("Cache-Control") { request.headers.add(name: "Cache-Control", value: "no-cache") }
            return request
        }
        return ServerSentEvents(
            call: StreamedCall(chain: components.chain), clock: configuration.clock, request: request, options: options, settings: settings)
    }
}
