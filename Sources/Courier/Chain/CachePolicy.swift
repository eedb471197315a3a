/// Where a GET's answer may come from (Apollo's names). HTTP freshness applies within each:
/// "cached" below means a stored response that is still fresh (or, where said, any stored one).
public enum CachePolicy: Sendable, Equatable {
    /// A fresh cached response if there is one, else the network (revalidating a stale entry
    /// with `If-None-Match` / `If-Modified-Since` when it has validators). The default.
    case cacheFirst
    /// The network first; if it fails (no connection, timeout, 5xx), any stored response,
    /// however stale: offline reads.
    case networkFirst
    /// The network only; the response is still stored for later requests.
    case networkOnly
    /// Any stored response, fresh or stale, and never the network; none is
    /// ``NetworkError/notCached``.
    case cacheOnly
}
