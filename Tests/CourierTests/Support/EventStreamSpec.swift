/// A scripted 200 `text/event-stream` sent in pieces (mirrors the Python `events` spec).
struct EventStreamSpec: Sendable, Encodable {
    /// How the response ends once its pieces are sent.
    enum End: String, Sendable, Encodable {
        /// The body ends (the last chunk), and the connection closes.
        case close
        /// The connection closes without the body's end: the client sees a truncated transfer.
        case cut
        /// The connection stays open until the client closes it (recorded as a disconnect).
        case hang
    }

    /// The body's text, each piece one chunk of chunked coding (one write).
    var pieces: [String]
    /// Each piece after the first waits for one more ``ScriptedServer/release(path:)``, counted
    /// from when this response began.
    var gated: Bool? = nil
    /// Seconds the server waits before each piece after the first (after its gate, if gated).
    var interval: Double? = nil
    /// How it ends; the server's default is ``End/close``.
    var end: End? = nil
}

extension ScriptedResponse {
    /// A 200 event stream sent as `spec` says; `headers` may name another `Content-Type` (set
    /// `status` on the result for another status).
    static func events(_ spec: EventStreamSpec, headers: [String: String]? = nil) -> ScriptedResponse {
        ScriptedResponse(status: 200, headers: headers, events: spec)
    }

    /// A 200 event stream of `pieces`, ended as `end` says.
    static func events(_ pieces: [String], end: EventStreamSpec.End = .close) -> ScriptedResponse {
        events(EventStreamSpec(pieces: pieces, end: end))
    }
}
