/// The token refresh's decisions, as a pure value type (no I/O, no clock of its own, tested
/// without actors): when a request needing a token may use the current one, must wait for the
/// refresh in flight, starts one, or is refused.
///
/// - **Phases**: `idle`; `refreshing` (one refresh in flight, numbered by a generation so a late
///   answer from a superseded refresh is ignored); `failed` (the server rejected the refresh
///   token: every request is refused until new tokens are set — the latch).
/// - **Versions**: every set of tokens has a version, one more than the last. A request remembers
///   the version it was sent with; a 401 for an older version than the current one is a late
///   answer to a token already replaced, so it takes the current token instead of refreshing
///   again. That, with one refresh in flight at a time, is what makes a 401 storm cost one
///   refresh.
/// - **Window**: at most `limit` refreshes start within `window`; beyond that requests are
///   refused rather than looping on a server that keeps answering 401.
struct RefreshMachine: Sendable {
    enum Phase: Equatable, Sendable {
        case idle
        case refreshing(generation: Int)
        case failed
    }

    /// What a request that needs a token does.
    enum Decision: Equatable, Sendable {
        /// The current token will do.
        case useCurrent
        /// Wait for the refresh in flight.
        case join
        /// Start refresh number `generation`, and wait for it.
        case start(generation: Int)
        /// Fail the request with `unauthorized`, for this reason.
        case refuse(Refusal)
    }

    /// Why a request gets no token.
    enum Refusal: Equatable, Sendable {
        /// No tokens: never signed in, or signed out.
        case signedOut
        /// The refresh token was rejected; nothing is sent until new tokens are set.
        case sessionExpired
        /// A refresh is needed and there is no refresh token.
        case noRefreshToken
        /// The refresh window is used up.
        case tooManyRefreshes
        /// The 401 was for a session that has since been replaced (a sign-in or sign-out came
        /// after the token was sent): the request is not replayed under another session's token.
        case sessionChanged
    }

    /// How a refresh ended.
    enum Outcome: Sendable {
        case refreshed
        /// The server refused the refresh token (401, or 400 `invalid_grant`).
        case rejected
        /// No connection, a timeout, a 5xx…: the tokens are kept.
        case transient
    }

    private(set) var phase = Phase.idle
    /// The version of the tokens in use.
    private(set) var version: Int
    /// The version the last sign-in or sign-out made: older versions belong to another session.
    private var sessionStart: Int
    private var generation = 0
    /// When the refreshes still inside the window started.
    private var starts: [Duration] = []
    let limit: Int
    let window: Duration

    init(version: Int = 0, limit: Int = 5, window: Duration = .seconds(30)) {
        self.version = version
        self.sessionStart = version
        self.limit = limit
        self.window = window
    }

    /// A request needs a token. `rejected` is the version a 401 came back for (the token is
    /// then known bad); `stale` says the current token is due for a proactive refresh; `now` is
    /// the monotonic time.
    mutating func tokenNeeded(rejected: Int?, stale: Bool, hasTokens: Bool, canRefresh: Bool, now: Duration) -> Decision {
        if phase == .failed { return .refuse(.sessionExpired) }
        guard hasTokens else { return .refuse(.signedOut) }
        if let rejected, rejected < sessionStart { return .refuse(.sessionChanged) }
        if let rejected, rejected < version { return .useCurrent }
        if rejected == nil, !stale { return .useCurrent }
        if case .refreshing = phase { return .join }
        guard canRefresh else { return .refuse(.noRefreshToken) }
        starts.removeAll { now - $0 >= window }
        guard starts.count < limit else { return .refuse(.tooManyRefreshes) }
        starts.append(now)
        generation += 1
        phase = .refreshing(generation: generation)
        return .start(generation: generation)
    }

    /// Refresh `generation` ended. Returns `false` if it is not the one in flight (tokens were set
    /// or cleared meanwhile): its outcome is then ignored.
    mutating func refreshFinished(generation: Int, _ outcome: Outcome) -> Bool {
        guard phase == .refreshing(generation: generation) else { return false }
        switch outcome {
        case .refreshed:
            version += 1
            phase = .idle
        case .rejected:
            phase = .failed
        case .transient:
            phase = .idle
        }
        return true
    }

    /// New tokens were set (sign-in): a new version, the latch lifted, a refresh in flight
    /// superseded.
    mutating func tokensSet() {
        version += 1
        sessionStart = version
        phase = .idle
    }

    /// The tokens were cleared (sign-out): requests are refused as signed out, not expired.
    mutating func tokensCleared() {
        version += 1
        sessionStart = version
        phase = .idle
    }
}
