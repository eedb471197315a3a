/// A GET on its way through the cache, with what decides how it is answered. A class, as
/// ``PendingRequest`` is: a message copy is one retain.
final class CacheRequest: Sendable {
    /// Names this caller while it waits (its cancellation message says which waiter left).
    let waiter: UInt64
    let request: HTTPRequest
    /// Passed on to the pipeline when the network is asked.
    let options: RequestOptions
    let policy: CachePolicy
    let ttl: CacheTTL
    /// Whose response it is: the session's identity for requests that carry its credentials,
    /// `nil` for requests that carry none (shared by everyone).
    let identity: String?

    init(waiter: UInt64, request: HTTPRequest, options: RequestOptions, policy: CachePolicy, ttl: CacheTTL, identity: String?) {
        self.waiter = waiter
        self.request = request
        self.options = options
        self.policy = policy
        self.ttl = ttl
        self.identity = identity
    }
}
