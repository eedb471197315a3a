import Foundation

/// Owns the session's tokens: sign-in and sign-out, persistence, and the refresh — one at a
/// time, whatever the number of requests that need it, with the decisions made by the pure
/// ``RefreshMachine``.
///
/// It publishes the current ``Credential`` in a ``LatestValue`` (the auth interceptor reads it
/// without a message) and ``TokenEvent``s for observers. A request only asks it (`token`) when
/// its token is due for a refresh or came back 401. The refresh call itself runs in a task of the
/// instance's ``SupervisedScope`` (the mailbox loop never awaits it); its result comes back as
/// `refreshFinished`. When an
/// instance goes away (a failure, shutdown), requests waiting for its refresh are answered by
/// their replies (`componentRestarted` / `componentUnavailable`), never left hanging.
///
/// It runs on a thread of its own (``ThreadExecutor``): saving the tokens writes and `fsync`s
/// a file (``FileTokenPersistence``, the Keychain), which must not hold the cooperative pool.
actor TokenStore: Component {
    /// The messages the token store understands: its whole API.
    enum Message: Sendable {
        /// Replace the tokens (`nil`: sign out), persist them, and answer (ask).
        case set(Tokens?, Reply<Void>)
        /// A token a request may use: the current one, or one after a refresh when the current
        /// one is due (`forced`, or past its refresh time) or came back 401 (`rejected`: the
        /// version it was sent with). Fails with `unauthorized` when there is none (ask).
        case token(rejected: Int?, forced: Bool, Reply<Credential>)
        /// A refresh call ended (tell, from its task). `instance` names the store instance that
        /// started it: a later instance ignores it.
        case refreshFinished(instance: UInt64, generation: Int, Result<Tokens, NetworkError>)
        /// Where the session stands (ask).
        case state(Reply<SessionState>)
    }

    /// What every instance runs with; it outlives instances (the supervisor makes a new
    /// instance on the same environment after a failure).
    struct Environment: Sendable {
        let mailbox: Mailbox<Message>
        /// Where the current credential is published.
        let credential: LatestValue<Credential>
        let events: EventBroadcaster<TokenEvent>
        let persistence: any TokenPersistence
        /// Sends the refresh request (through transport, retry and logging, never auth).
        let refresh: @Sendable (_ refreshToken: String) async -> Result<Tokens, NetworkError>
        /// Requests refresh this long before the access token expires.
        let threshold: Duration
        let maxRefreshes: Int
        let refreshWindow: Duration
        let clock: any TimeSource
    }

    private let environment: Environment
    /// Where the refresh call runs: cancelled with this instance, failing it if it throws.
    private let scope: SupervisedScope
    /// The thread every message is handled on, and the persistence called (one per instance).
    private let executor = ThreadExecutor(name: "courier.tokens")

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// This instance's identity, so that a refresh started by an earlier instance (whose waiters
    /// were already answered `componentRestarted`) is not taken for one of its own.
    private let instance = UInt64.random(in: .min ... .max)
    /// The session's tokens, with the app's identity for them, if it gave one (``Tokens/identity``).
    private var tokens: Tokens? {
        didSet { receivedAt = environment.clock.currentDate }
    }
    /// When the current tokens arrived (or were loaded): a token that lives less than twice the
    /// refresh threshold is refreshed at half its life instead, not on every request.
    private var receivedAt = Date.distantPast
    private var machine: RefreshMachine
    /// The cache's name for a session whose tokens carry no identity: made at sign-in (or load),
    /// kept across refreshes, never saved.
    private var madeIdentity: String?
    /// Requests waiting for the refresh in flight.
    private var waiters: [Reply<Credential>] = []

    /// Whether this instance has read the persisted tokens (it does before its first message).
    private var loaded = false

    /// A fresh instance; the version goes on from the last one published.
    init(_ environment: Environment, scope: SupervisedScope) {
        self.environment = environment
        self.scope = scope
        machine = RefreshMachine(
            version: environment.credential.value.version, limit: environment.maxRefreshes, window: environment.refreshWindow)
    }

    /// Throws when a sign-in or sign-out cannot be persisted: the store then fails, the caller
    /// is answered `componentRestarted`, and the next instance starts from what is durable.
    func handle(_ message: consuming Message) throws {
        if !loaded { load() }
        switch consume message {
        case .set(let new, let reply):
            // A sign-in without an identity of the app's is a new session for the cache, even
            // over old tokens.
            madeIdentity = new != nil && new?.identity == nil ? Self.newIdentity() : nil
            do {
                if let new { try environment.persistence.save(new) } else { try environment.persistence.remove() }
            } catch {
                environment.events.publish(.storageFailed("\(error)"))
                throw error
            }
            let refreshing = waiters
            waiters = []
            tokens = new
            if let new {
                machine.tokensSet()
                environment.events.publish(.signedIn(expiresAt: new.expiresAt))
            } else {
                machine.tokensCleared()
                environment.events.publish(.signedOut)
            }
            let credential = publishCredential()
            // Whoever waited for a refresh gets the new tokens, or is refused after a sign-out.
            for waiter in refreshing { answer(waiter, credential) }
            reply.succeed(())
        case .token(let rejected, let forced, let reply):
            let current = environment.credential.value
            let stale = forced || current.refreshAt.map { environment.clock.currentDate >= $0 } ?? false
            let decision = machine.tokenNeeded(
                rejected: forced ? machine.version : rejected, stale: stale, hasTokens: tokens != nil,
                canRefresh: tokens?.refreshToken != nil, now: environment.clock.now)
            switch decision {
            case .useCurrent:
                answer(reply, current)
            case .join:
                waiters.append(reply)
            case .start(let generation):
                waiters.append(reply)
                startRefresh(generation)
            case .refuse:
                reply.fail(NetworkError.unauthorized(nil))
            }
        case .refreshFinished(let instance, let generation, let result):
            if instance == self.instance { finishRefresh(generation, result) }
        case .state(let reply):
            reply.succeed(state)
        }
    }

    /// Reads the persisted tokens (a failed load means signed out, with an event) and publishes
    /// their credential. Done before the first message rather than at creation, so that the
    /// event of a failed load reaches whoever subscribed before asking anything.
    private func load() {
        loaded = true
        do {
            tokens = try environment.persistence.load()
            madeIdentity = tokens != nil && tokens?.identity == nil ? Self.newIdentity() : nil
        } catch {
            tokens = nil
            environment.events.publish(.storageFailed("could not load the tokens: \(error)"))
        }
        publishCredential()
    }

    private var state: SessionState {
        if machine.phase == .failed { return .expired }
        guard let tokens else { return .signedOut }
        return .signedIn(expiresAt: tokens.expiresAt)
    }

    private func startRefresh(_ generation: Int) {
        guard let refreshToken = tokens?.refreshToken else { return }
        let (refresh, mailbox, instance) = (environment.refresh, environment.mailbox, instance)
        scope.spawn("refresh") {
            let result = await refresh(refreshToken)
            try? mailbox.send(.refreshFinished(instance: instance, generation: generation, result))
        }
    }

    private func finishRefresh(_ generation: Int, _ result: Result<Tokens, NetworkError>) {
        let outcome: RefreshMachine.Outcome
        switch result {
        case .success: outcome = .refreshed
        case .failure(let error): outcome = Self.rejectsRefreshToken(error) ? .rejected : .transient
        }
        guard machine.refreshFinished(generation: generation, outcome) else { return }
        let refreshing = waiters
        waiters = []
        switch result {
        case .success(var new):
            // Rotation: a response without a refresh token keeps the one that worked. A refresh
            // is the same session: its identity is kept.
            if new.refreshToken == nil { new.refreshToken = tokens?.refreshToken }
            new.identity = tokens?.identity
            tokens = new
            persist { try $0.save(new) }
            let credential = publishCredential()
            environment.events.publish(.refreshed(expiresAt: new.expiresAt))
            for waiter in refreshing { answer(waiter, credential) }
        case .failure(let error) where outcome == .rejected:
            tokens = nil
            persist { try $0.remove() }
            publishCredential()
            environment.events.publish(.sessionExpired)
            for waiter in refreshing { waiter.fail(NetworkError.unauthorized(error.response)) }
        case .failure(let error):
            environment.events.publish(.refreshFailed(error))
            for waiter in refreshing { waiter.fail(error) }
        }
    }

    /// Publishes the credential of the current tokens and returns it.
    @discardableResult
    private func publishCredential() -> Credential {
        var credential = Credential.none(version: machine.version)
        if let tokens {
            credential = Credential(
                authorization: "Bearer " + tokens.accessToken, version: machine.version,
                refreshAt: tokens.expiresAt.map { expiry in
                    let lead = min(environment.threshold.inSeconds, max(0, expiry.timeIntervalSince(receivedAt)) / 2)
                    return expiry.addingTimeInterval(-lead)
                }, identity: tokens.identity ?? madeIdentity, appIdentity: tokens.identity)
        }
        environment.credential.publish(credential)
        return credential
    }

    private static func newIdentity() -> String {
        String(UInt64.random(in: .min ... .max), radix: 36)
    }

    private func answer(_ reply: Reply<Credential>, _ credential: Credential) {
        if credential.authorization == nil {
            reply.fail(NetworkError.unauthorized(nil))
        } else {
            reply.succeed(credential)
        }
    }

    /// Runs a persistence call after a refresh; a failure is published and the tokens stay in
    /// memory (failing the store would lose tokens the server has already rotated).
    private func persist(_ body: (any TokenPersistence) throws -> Void) {
        do {
            try body(environment.persistence)
        } catch {
            environment.events.publish(.storageFailed("\(error)"))
        }
    }

    /// Whether the refresh endpoint refused the refresh token itself (401, or 400 with the
    /// OAuth error `invalid_grant`), as opposed to failing for a reason that may pass.
    static func rejectsRefreshToken(_ error: NetworkError) -> Bool {
        switch error {
        case .unauthorized(let response): return response != nil
        case .serverError(let response) where response.status == 400:
            let body = String(decoding: response.body.prefix(4096), as: UTF8.self)
            return body.contains("invalid_grant")
        default: return false
        }
    }
}
