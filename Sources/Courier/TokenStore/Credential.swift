import Foundation

/// What the auth interceptor needs on every request, published by the ``TokenStore`` in a
/// ``LatestValue`` so that reading it costs no message: the `Authorization` value (built once
/// per token, not per request), the version it belongs to, and when to refresh it.
struct Credential: Sendable {
    /// `Bearer <access token>`, or `nil` when there are no tokens (requests then fail fast).
    let authorization: String?
    /// The version of the tokens it was made from (``RefreshMachine``).
    let version: Int
    /// From then on, requests refresh first (expiry minus the refresh threshold); `nil` never.
    let refreshAt: Date?
    /// Whose session it is (``Tokens/identity``: the app's, or a random name given at sign-in
    /// and saved with the tokens), kept across refreshes and restarts. The cache stores
    /// authenticated responses under it; queued writes are replayed only under it.
    var identity: String? = nil
    /// Whether a store instance published it. Until the store has loaded the tokens from
    /// persistence (before its first message), requests ask it instead of failing as signed out.
    var isPublished = true

    static func none(version: Int) -> Credential {
        Credential(authorization: nil, version: version, refreshAt: nil)
    }

    /// What the client holds before its store has started.
    static let unpublished = Credential(authorization: nil, version: 0, refreshAt: nil, identity: nil, isPublished: false)
}
