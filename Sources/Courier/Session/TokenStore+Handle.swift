import Foundation

extension TokenStore {
    /// What the rest of the client holds to use the token store: its mailbox, and the credential
    /// it publishes. Built before the store starts (messages sent meanwhile wait in the mailbox).
    /// A class: every authenticated request takes it, so it is shared, not copied field by field.
    final class Handle: Sendable {
        let mailbox: Mailbox<Message>
        let credential: LatestValue<Credential>
        let clock: any TimeSource

        init(mailbox: Mailbox<Message>, credential: LatestValue<Credential>, clock: any TimeSource) {
            self.mailbox = mailbox
            self.credential = credential
            self.clock = clock
        }

        /// The credential to send now: the published one, read without a message, unless it is
        /// due for a refresh (then one `token` ask, which waits for the refresh).
        /// - Throws: ``NetworkError/unauthorized(_:)`` (nil response) when there are no tokens.
        nonisolated(nonsending) func current() async throws(NetworkError) -> Credential {
            let credential = credential.value
            // Before the store has loaded the persisted tokens, ask it (its first message loads them).
            guard credential.isPublished else { return try await token(rejected: nil, forced: false) }
            guard credential.authorization != nil else { throw .unauthorized(nil) }
            if isDue(credential.refreshAt) { return try await token(rejected: nil, forced: false) }
            return credential
        }

        /// The `Authorization` value to send now and the version of the tokens it is from, read
        /// without a message or a wait; `nil` when the store must be asked (``current()``): its
        /// tokens are not loaded yet, or a refresh is due. Nothing else of the credential is copied.
        /// - Throws: ``NetworkError/unauthorized(_:)`` (nil response) when there are no tokens.
        func authorizationNow() throws(NetworkError) -> (value: String, version: Int)? {
            let published = credential.read { credential -> (value: String?, version: Int, refreshAt: Date?)? in
                guard credential.isPublished else { return nil }
                return (credential.authorization, credential.version, credential.refreshAt)
            }
            guard let published else { return nil }
            guard let value = published.value else { throw .unauthorized(nil) }
            if isDue(published.refreshAt) { return nil }
            return (value, published.version)
        }

        /// Whether a credential that refreshes at `refreshAt` is due for its refresh now.
        private func isDue(_ refreshAt: Date?) -> Bool {
            refreshAt.map { clock.currentDate >= $0 } ?? false
        }

        /// A credential after the one of `version` came back 401: the current one if it is
        /// newer, else the one a refresh brings (one refresh for any number of callers).
        nonisolated(nonsending) func renewed(after version: Int) async throws(NetworkError) -> Credential {
            try await token(rejected: version, forced: false)
        }

        /// Refreshes now, whatever the expiry.
        nonisolated(nonsending) func forceRefresh() async throws(NetworkError) -> Credential {
            try await token(rejected: nil, forced: true)
        }

        /// Sets (or, with `nil`, clears) the tokens.
        nonisolated(nonsending) func set(_ tokens: Tokens?) async throws(NetworkError) {
            try await mailbox.request { .set(tokens, $0) }
        }

        /// Where the session stands.
        nonisolated(nonsending) func state() async throws(NetworkError) -> SessionState {
            try await mailbox.request { .state($0) }
        }

        /// One `token` ask. If the store restarted while holding it, asks the new instance once
        /// more: a restart alone never fails a request.
        private nonisolated(nonsending) func token(rejected: Int?, forced: Bool) async throws(NetworkError) -> Credential {
            do {
                return try await mailbox.request { .token(rejected: rejected, forced: forced, $0) }
            } catch .componentRestarted {
                return try await mailbox.request { .token(rejected: rejected, forced: forced, $0) }
            }
        }
    }
}

extension TokenStore.Handle {
    /// The identity the app gave the session now (``Tokens/identity``), which queued writes are
    /// bound to; `nil` when it gave none or when signed out. Right after launch, once the store
    /// has loaded the saved tokens (one ask, at launch only).
    nonisolated(nonsending) func appIdentity() async -> String? {
        if !credential.read({ $0.isPublished }) { _ = try? await state() }
        return credential.read { $0.appIdentity }
    }
}
