import Foundation

/// What happened to the session's tokens, published by the client's token store
/// (``ClientSession/events(buffer:)``). Events never carry a token.
public enum TokenEvent: Sendable {
    /// Tokens were set (after a login), expiring at the given date if known.
    case signedIn(expiresAt: Date?)
    /// A refresh succeeded; the new access token expires at the given date if known.
    case refreshed(expiresAt: Date?)
    /// A refresh failed for a reason that may pass (no connection, timeout, 5xx); the tokens are
    /// kept and the next request that needs one tries again.
    case refreshFailed(NetworkError)
    /// The server rejected the refresh token: the tokens were cleared and every request fails
    /// with `unauthorized` until new tokens are set. Time to show the login screen.
    case sessionExpired
    /// The tokens were cleared by ``ClientSession/signOut()``.
    case signedOut
    /// The token persistence failed (the description says how, never what the tokens are).
    /// After a failed load the store starts signed out; after a failed save it goes on with the
    /// tokens in memory.
    case storageFailed(String)
}
