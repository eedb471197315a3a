import Foundation

/// The session's calls: `client.session`. Sign in after your login call, sign out, refresh,
/// read where the session stands, and follow its events.
///
/// Without ``APIClient/Configuration/session`` every call throws
/// ``NetworkError/componentUnavailable(_:)`` named `"session"`, and every event stream finishes at
/// once (the rule of every optional group; see ``APIClient``).
public struct ClientSession: Sendable {
    let tokens: TokenStore.Handle?
    let events: EventBroadcaster<TokenEvent>
    /// Tells the offline queue's coordinator: writes waiting for this identity may go.
    let signedIn: @Sendable () -> Void
    /// Drops the cached responses of the identity that signed out.
    let signedOut: @Sendable (_ identity: String) -> Void
    /// Clears the cookie store, when the client has one that clears on sign-out.
    let clearCookies: @Sendable () async throws(NetworkError) -> Void

    /// Starts a session with `tokens` (after your login call): they are persisted, and every
    /// request that needs credentials carries the access token from now on. Queued writes
    /// waiting for this identity (``Tokens/identity``) are replayed.
    public func signIn(_ tokens: Tokens) async throws(NetworkError) {
        try await store().set(tokens)
        signedIn()
    }

    /// Ends the session: the tokens are cleared from memory and persistence, and requests that
    /// need credentials fail with `unauthorized` (without being sent) until the next sign-in.
    /// The session's cached responses are dropped too, and every cookie, unless
    /// ``CookieConfiguration/clearsOnSignOut`` is off.
    /// - Throws: ``NetworkError/storageFailed(_:)`` if the cookies' storage file could not be
    ///   cleared (the tokens are cleared, and the cookies are gone from memory).
    public func signOut() async throws(NetworkError) {
        let store = try store()
        let identity = store.credential.value.identity
        try await store.set(nil)
        if let identity { signedOut(identity) }
        try await clearCookies()
    }

    /// Refreshes the access token now, whatever its expiry (one refresh, shared with any
    /// request that needed one at the same time).
    /// - Throws: ``NetworkError/unauthorized(_:)`` if there is no session or the server
    ///   rejected the refresh token; the refresh call's error if it failed otherwise.
    public func refresh() async throws(NetworkError) {
        _ = try await store().forceRefresh()
    }

    /// Where the session stands; never a token.
    public func state() async throws(NetworkError) -> SessionState {
        try await store().state()
    }

    /// Every token event from now on (signed in, refreshed, refresh failed, session expired,
    /// signed out, storage failed); events never carry a token. Buffered as every Courier event
    /// stream is: a subscriber that falls behind keeps the newest `buffer` events.
    public func events(buffer: Int = ClientGroup.eventBuffer) -> AsyncStream<TokenEvent> {
        guard tokens != nil else { return ClientGroup.finished() }
        return events.subscribe(bufferingPolicy: .bufferingNewest(buffer))
    }

    private func store() throws(NetworkError) -> TokenStore.Handle {
        guard let tokens else { throw ClientGroup.session.unavailable }
        return tokens
    }
}
