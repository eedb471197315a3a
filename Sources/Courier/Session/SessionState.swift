import Foundation

/// Where the session stands (``ClientSession/state()``); it never shows a token.
public enum SessionState: Sendable, Equatable {
    /// No tokens: never signed in, or signed out.
    case signedOut
    /// Tokens are set; the access token expires at the given date if known.
    case signedIn(expiresAt: Date?)
    /// The refresh token was rejected; requests fail with `unauthorized` until new tokens are set.
    case expired
}
