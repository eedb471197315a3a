import Foundation

/// A session's credentials: the access token sent as `Authorization: Bearer`, the refresh token
/// that buys a new one, and when the access token expires.
///
/// Its description never shows the tokens, so printing or logging one leaks nothing.
public struct Tokens: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The token sent with requests.
    public var accessToken: String
    /// The token sent to the refresh endpoint, if the server gave one.
    public var refreshToken: String?
    /// When the access token stops being accepted, if known.
    public var expiresAt: Date?
    /// Whose session this is: your user's id (any stable text), or `nil`. With an identity,
    /// writes queued in the offline queue remember it and are replayed only while the session
    /// has the same identity: a write queued by one user is never sent with another user's token
    /// (it waits as ``OfflineItemState/waitingForUser`` until its user signs in again, under the
    /// same identity). Authenticated cached responses are kept per identity too. A
    /// ``TokenPersistence`` must keep this field with the tokens (encoding `Tokens` with
    /// `Codable` does).
    ///
    /// Without one (`nil`), queued writes are replayed with whoever's token is current at
    /// replay, and the cache keeps authenticated responses per sign-in (a random name, never
    /// saved, kept across refreshes): a later sign-in, or a restart, starts afresh.
    public var identity: String?

    /// Tokens with a known expiry, or none (`nil`, the default: an opaque token that is used
    /// until the server answers 401, then refreshed once).
    ///
    /// ```swift
    /// try await client.signIn(Tokens(accessToken: answer.token, refreshToken: answer.refresh))
    /// ```
    public init(accessToken: String, refreshToken: String? = nil, expiresAt: Date? = nil, identity: String? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.identity = identity
    }

    /// Tokens whose expiry is read from the access token, a JWT (its payload's `exp` claim).
    /// The signature is not checked: the server verifies tokens, the client only reads when to
    /// refresh.
    /// - Throws: ``NetworkError/invalidToken(_:)`` if the access token is not a JWT with a
    ///   numeric `exp`.
    public init(jwt accessToken: String, refreshToken: String?, identity: String? = nil) throws(NetworkError) {
        self.init(accessToken: accessToken, refreshToken: refreshToken, expiresAt: try JWT.expiry(of: accessToken), identity: identity)
    }

    /// Tokens for an opaque access token that expires `expiresIn` seconds after `now` (the
    /// `expires_in` of an OAuth token response); `now` defaults to the current date.
    public init(
        accessToken: String, refreshToken: String? = nil, expiresIn: TimeInterval, now: Date = Date(), identity: String? = nil
    ) {
        self.init(accessToken: accessToken, refreshToken: refreshToken, expiresAt: now.addingTimeInterval(expiresIn), identity: identity)
    }

    /// Shows the expiry only, never a token (nor the identity).
    public var description: String {
        "Tokens(expiresAt: \(expiresAt.map { "\($0)" } ?? "unknown"), refreshToken: \(refreshToken == nil ? "none" : "present"))"
    }
}
