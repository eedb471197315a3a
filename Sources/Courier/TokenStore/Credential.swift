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

    static func none(version: Int) -> Credential {
        Credential(authorization: nil, version: version, refreshAt: nil)
    }
}
