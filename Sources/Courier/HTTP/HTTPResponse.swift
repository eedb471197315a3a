import Foundation

/// An HTTP response as a transport received it: the status code, the header fields and the
/// whole body.
///
/// A plain value with no judgement attached: a 404 or a 500 is a perfectly good
/// `HTTPResponse`. Turning statuses into ``NetworkError``s is the job of the layer above.
public struct HTTPResponse: Sendable {
    /// The status code, e.g. `200` or `404`.
    public var status: Int
    /// The header fields, in the order received.
    public var headers: HTTPHeaders
    /// The body, empty if the response had none.
    public var body: Data
    /// What the pipeline did to get this response: the request's id, attempts, redirects and
    /// duration. `nil` for a response the cache answered without asking the network, and for
    /// one built by hand or straight from a transport.
    public var metrics: RequestMetrics?
    /// Whether this is a 401 to a request that carried no `Authorization` field (set by the
    /// pipeline): its user message says the credentials were refused, not that a session ended.
    var answersUnauthenticatedRequest = false
    /// The body still arriving, for a streamed call's 2xx (``body`` is then empty); carried
    /// from the transport step to `APIClient.bytes(for:)`.
    var streamedBody: ResponseBytes?
    /// Set on the offline gate's answer to a write it stored instead of sending (a `202`
    /// without a body): the queued item's id, read by `client.offline.send`.
    var queuedItemID: Int64?
    /// Its age in seconds, on a response the cache answered with from storage, without asking
    /// the network (read by the cache step, which reports the hit).
    var cacheAge: Int?
    /// Set by the pipeline on a response whose status became a ``NetworkError``: the request it
    /// answers and its decoded error body.
    var errorContext: NetworkError.ResponseContext?
    /// The open connection on a 101 (a WebSocket's: `HTTPTransport.upgrade`), carried from
    /// the transport step to `APIClient.webSocket`.
    var upgradedConnection: (any UpgradedConnection)?

    /// Creates a response; headers default to none and the body to empty.
    public init(status: Int, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Whether ``status`` is a 2xx success code (`200..<300`).
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// Takes the body out, leaving the head (``body`` empty): the stream it is arriving in, or
    /// the bytes already received as one chunk.
    mutating func takeBody() -> ResponseBytes {
        defer { (streamedBody, body) = (nil, Data()) }
        return streamedBody ?? ResponseBytes(body)
    }
}
