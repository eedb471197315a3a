public import Courier

/// How ``CourierTransport`` sends the calls of one operation: Courier's per-call options, and
/// whether a write waits in the offline queue when the device is offline.
///
/// ```swift
/// var createUser = OperationOptions()
/// createUser.request.retryPolicy = .never
/// createUser.queuesOffline = true
/// var getUser = OperationOptions()
/// getUser.request.cachePolicy = .networkFirst
/// let transport = CourierTransport(client: api, options: ["createUser": createUser, "getUser": getUser])
/// ```
public struct OperationOptions: Sendable {
    /// Courier's options for the call: retry and circuit breaker policies, deadlines, auth,
    /// cache policy and TTL, redirects, progress, tags. The transport adds the
    /// ``OpenAPIOperation`` tag.
    ///
    /// A call whose ``RequestOptions/cachePolicy`` is set goes through the client's cache, which
    /// stores whole bodies: its response body is read whole (within the client's
    /// `maxResponseBytes`) before the generated client sees it. Every other call streams.
    public var request: RequestOptions

    /// Whether a write (not GET, HEAD or OPTIONS) goes through the client's offline queue
    /// (``ClientOfflineQueue/send(_:)``): sent at once when online, else stored and replayed
    /// when the network returns. A stored write answers `202 Accepted` with no body and the
    /// queued item's id in ``CourierTransport/queuedItemHeader``. Its body is read whole (the
    /// queue stores bytes, not streams), within ``maxQueuedBodyBytes``. Default `false`.
    public var queuesOffline: Bool

    /// The largest body a write queued offline may have. Default 1 MiB.
    public var maxQueuedBodyBytes: Int

    /// The longest wait for the next bytes of a streamed response body. Default
    /// ``APIClient/defaultStallTimeout``.
    public var stallTimeout: Duration

    /// The most bytes a streamed response body may have; beyond them reading it throws
    /// ``NetworkError/responseTooLarge(limit:)``. Default unlimited (a streamed body is never
    /// held whole; the generated client's own collecting limits apply).
    public var maxResponseBytes: Int

    /// Options for an operation: Courier's defaults, streamed, never queued.
    public init(
        request: RequestOptions = RequestOptions(), queuesOffline: Bool = false, maxQueuedBodyBytes: Int = 1 << 20,
        stallTimeout: Duration = APIClient.defaultStallTimeout, maxResponseBytes: Int = .max
    ) {
        self.request = request
        self.queuesOffline = queuesOffline
        self.maxQueuedBodyBytes = maxQueuedBodyBytes
        self.stallTimeout = stallTimeout
        self.maxResponseBytes = maxResponseBytes
    }
}
