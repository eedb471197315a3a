/// Where a session's tokens survive the process: the client's token store loads them when it starts
/// (and after a restart), saves them after every sign-in and refresh, and removes them at sign-out
/// or when the server rejects the refresh token.
///
/// Courier ships ``InMemoryTokenPersistence`` (the default) and ``FileTokenPersistence``; an
/// Apple app plugs in the Keychain with a few lines (see the README). Calls are synchronous and
/// rare (sign-in, refresh, sign-out), so the store makes them from its own actor.
public protocol TokenPersistence: Sendable {
    /// The saved tokens, or `nil` if there are none. Throws if they exist but cannot be read
    /// (the store then starts signed out and publishes ``TokenEvent/storageFailed(_:)``).
    func load() throws -> Tokens?
    /// Replaces the saved tokens.
    func save(_ tokens: Tokens) throws
    /// Forgets the saved tokens; removing nothing is not an error.
    func remove() throws
}
