/// A GET on its way through the cache, with what decides how it is answered. A class: it
/// travels in messages, and its identity names the caller while it waits (a `leave` carries the
/// same object as the caller's `get`).
final class CacheRequest: Sendable {
    let request: HTTPRequest
    /// Where its response is filed: the request's URL, and whose response it is (the session's
    /// identity for requests that carry its credentials, "" for requests that carry none).
    let key: CacheKey
    /// Passed on to the pipeline when the network is asked.
    let options: RequestOptions
    let settings: CallSettings
    let policy: CachePolicy
    let ttl: CacheTTL

    init(request: HTTPRequest, key: CacheKey, options: RequestOptions, settings: CallSettings, policy: CachePolicy, ttl: CacheTTL) {
        self.request = request
        self.key = key
        self.options = options
        self.settings = settings
        self.policy = policy
        self.ttl = ttl
    }
}
