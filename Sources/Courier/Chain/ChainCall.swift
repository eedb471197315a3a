import Foundation

/// What the steps of one call know of it, handed down the chain by value: each step passes on
/// what it set up (admission the id and deadline, the retry step the attempt). What does not
/// change during the call is shared (``CallRecord``), so a copy is a few words.
struct ChainCall: Sendable {
    /// The call's own part: its options and settings, and what later steps report back.
    let record: CallRecord
    /// Set by admission; 0 before.
    var id = RequestID(0)
    /// When the call entered admission and when it must be over, on the client's clock (all
    /// attempts and waits included). Set by admission.
    var created = Duration.zero
    var deadline = Duration.zero
    /// The timeout of one attempt (an attempt never runs past ``deadline`` either).
    var attemptTimeout = Duration.zero
    /// Whether anyone subscribed to request events when the call was admitted.
    var publishing = false
    /// The attempt number (1 for the first) and when it must end, and which limit that is.
    var attempt = 1
    var attemptEnd: (at: Duration, limit: NetworkError.TimeoutLimit) = (.zero, .request)
    /// The bytes the response may still have: the client's limit less what earlier redirect
    /// hops of the attempt received.
    var responseBytesLeft: Int

    init(client: ChainSettings, options: RequestOptions, settings: CallSettings = CallSettings()) {
        record = CallRecord(client: client, options: options, settings: settings)
        responseBytesLeft = client.maxResponseBytes
    }

    /// The client's settings every call shares.
    var client: ChainSettings { record.client }
    /// The caller's options, as given (a `nil` setting is the client's).
    var options: RequestOptions { record.options }
    /// What Courier's own calls add (a stream, a read key, a replay's identity).
    var settings: CallSettings { record.settings }

    /// What the interceptors are told.
    var context: RequestContext {
        RequestContext(
            id: id, attempt: attempt, requiresAuth: options.requiresAuth, baseURL: client.baseURL, baseOrigin: client.baseOrigin,
            logger: client.logger, tags: options.tags)
    }
}
