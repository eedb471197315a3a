/// How a streamed call receives its body (``APIClient/bytes(for:stallTimeout:maxBytes:)``,
/// ``APIClient/download(_:to:maxBytes:resumable:stallTimeout:)``): the request's timeout bounds the time
/// to the head; these the body.
struct StreamSettings: Sendable {
    /// The longest wait for the next body bytes, while the consumer waits for them.
    let stallTimeout: Duration
    /// The most body bytes taken (not `maxResponseBytes`: a download has its own limit).
    let maxBytes: Int
}
