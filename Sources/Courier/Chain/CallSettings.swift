/// What Courier's own calls add to a request's options; never set by users, so not part of
/// ``RequestOptions``.
struct CallSettings: Sendable {
    /// Set for a streamed call: its 2xx body is handed over as it arrives, never cached.
    var stream: StreamSettings?
    /// Set for a WebSocket's handshake: the transport upgrades the connection
    /// (``HTTPTransport/upgrade(_:webSocket:)``); never cached.
    var webSocket: WebSocketOptions?
    /// Set for a read sent with an unsafe method (a GraphQL query `POST`ed): the cache files it
    /// under this key (coalescing identical ones), and it is retried as an idempotent request.
    var readKey: String?
    /// Set when a 2xx or a 4xx can say the credential was refused (a GraphQL `UNAUTHENTICATED`,
    /// which GraphQL-over-HTTP servers send with a 4xx): such a response goes through the 401
    /// renewal (one refresh for a storm, one replay).
    var credentialRejected: (@Sendable (HTTPResponse) -> Bool)?
    /// Set for a queued write's replay: the session identity it was queued under. The auth step
    /// adds only that identity's credentials, and fails it `unauthorized` under another.
    var sessionIdentity: String?
    /// Set by `client.offline.send` and `perform`: a write is stored in the offline queue
    /// instead of sent while offline, and when its connection fails.
    var queuesWhenOffline = false
}
