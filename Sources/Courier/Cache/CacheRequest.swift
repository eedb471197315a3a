/// A GET on its way through the cache, with what decides how it is answered. A class: it
/// travels in messages, and its identity names the caller while it waits (a `leave` carries the
/// same object as the caller's `get`).
final class CacheRequest: Sendable {
    let request: HTTPRequest
    /// The request's headers as the server gets them: with the `Cookie` field the cookie step
    /// adds below the cache. What a stored response's `Vary` is matched against.
    let headers: HTTPHeaders
    /// Where its response is filed: the request's URL, and whose response it is (the session's
    /// identity for requests that carry its credentials, "" for requests that carry none, each
    /// partitioned by the cookies it carries).
    let key: CacheKey
    /// The fetch its caller prepared: the cache starts it if this request opens a new fetch.
    let fetch: PreparedFetch
    let policy: CachePolicy
    let ttl: CacheTTL

    init(request: HTTPRequest, headers: HTTPHeaders? = nil, key: CacheKey, policy: CachePolicy, ttl: CacheTTL, fetch: PreparedFetch) {
        self.request = request
        self.headers = headers ?? request.headers
        self.key = key
        self.fetch = fetch
        self.policy = policy
        self.ttl = ttl
    }
}
