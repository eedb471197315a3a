/// One call's shared part: the client's settings, the caller's options and Courier's own
/// settings (set once), and what the steps below an attempt report back up to the retry and
/// admission steps: the request as last sent (the retry decision and the 401 renewal judge it,
/// with what interceptors and auth added), the attempts made, the redirects the last one
/// followed, and the bytes of responses its steps received and dropped (a Digest challenge's
/// 401, answered by a re-send), which count against the response size limit.
///
/// A class shared down one call's chain; its lock orders a write in a later step before the
/// read in an earlier one, even when a user's interceptor runs the rest of the chain elsewhere.
final class CallRecord: Sendable {
    let client: ChainSettings
    let options: RequestOptions
    let settings: CallSettings

    init(client: ChainSettings, options: RequestOptions, settings: CallSettings) {
        self.client = client
        self.options = options
        self.settings = settings
    }

    private struct State {
        var sent: HTTPRequest?
        var redirects = 0
        var attempts = 0
        var discardedBytes = 0
    }

    private let state = Locked(State())

    /// The request the transport was last given.
    var sent: HTTPRequest? { state.withLock { $0.sent } }
    /// The attempts started and the redirects the last one followed, read at once.
    var counts: (attempts: Int, redirects: Int) { state.withLock { ($0.attempts, $0.redirects) } }

    func sending(_ request: HTTPRequest) { state.withLock { $0.sent = request } }
    func followed(_ redirects: Int) { state.withLock { $0.redirects = redirects } }
    /// The bytes of responses the current attempt received and dropped.
    var discardedBytes: Int { state.withLock { $0.discardedBytes } }
    func discarded(_ bytes: Int) { state.withLock { $0.discardedBytes += bytes } }
    /// Attempt `number` starts: nothing of it is sent yet (a step may answer it itself).
    func attempting(_ number: Int) {
        state.withLock { state in
            state.attempts = number
            state.sent = nil
            state.redirects = 0
            state.discardedBytes = 0
        }
    }
}
