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
    /// Whose session it is, for the cache (which stores authenticated responses under it): the
    /// app's ``Tokens/identity``, else a random name made at sign-in (or load) and kept across
    /// refreshes, never saved.
    var identity: String? = nil
    /// The identity the app gave (``Tokens/identity``), `nil` when it gave none: queued writes
    /// are bound to it and replayed only under it. A made-up name would park a user's writes
    /// after every sign-out, so only the app's binds them.
    var appIdentity: String? = nil
    /// Whether a store instance published it. Until the store has loaded the tokens from
    /// persistence (before its first message), requests ask it instead of failing as signed out.
    var isPublished = true

    static func none(version: Int) -> Credential {
        Credential(authorization: nil, version: version, refreshAt: nil)
    }

    /// What the client holds before its store has started.
    static let unpublished = Credential(authorization: nil, version: 0, refreshAt: nil, identity: nil, appIdentity: nil, isPublished: false)
}
