/// What a stored GET response is filed under: its URL and whose response it is.
struct CacheKey: Hashable, Sendable {
    /// The request's URL, as sent.
    let url: String
    /// The session's identity for responses to requests with its credentials, "" for responses
    /// to requests without any (shared).
    let identity: String
}
