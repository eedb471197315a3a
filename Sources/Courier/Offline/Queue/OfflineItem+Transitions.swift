import Foundation

/// The verdict of one replay of an item, as the drain hands it to the queue.
enum ReplayVerdict: Sendable {
    /// A 2xx with this status.
    case delivered(status: Int)
    /// The replay did not reach a verdict (the connection was lost, the drain was stopped, the
    /// client shut down): the item waits again, the attempt is not counted. `unanswered`: the
    /// request may have reached the server, which may still be processing it.
    case interrupted(String, unanswered: Bool)
    /// A failure: one attempt counted; an error that may pass means `retrying`, any other `dead`.
    case failed(NetworkError)
    /// A 409 or 412 (`response`), and what the resolver chose.
    case conflict(HTTPResponse, ConflictResolution)
    /// A 409 or 412 (`response`) to a replay whose key's last send got no answer: most likely the
    /// server still processing that send, not a conflict. The item backs off without counting an
    /// attempt and is replayed with the same key, which then gets the first send's answer.
    case keyInProgress(HTTPResponse)
    /// Refused by the origin's open circuit breaker (``NetworkError/circuitOpen(origin:retryAfter:)``):
    /// nothing was sent, and it says nothing of this write. The item backs off until the breaker
    /// lets probes through (`retryAfter`, or its backoff when that is zero) without counting an
    /// attempt.
    case breakerOpen(NetworkError, retryAfter: Duration)
    /// Claimed but not replayed (the drain ended first): it waits again as it was, nothing counted.
    case released
}

extension ReplayVerdict {
    /// Whether it ends the drain whatever the item's new state: it says nothing about the item
    /// (a lost connection, a stop), or the item was not replayed.
    var endsDrain: Bool {
        switch self {
        case .interrupted, .released: true
        default: false
        }
    }
}

/// What a transition does to an item: its new value (`nil`: it leaves the queue) and the
/// event that reports it.
struct OfflineItemChange: Sendable {
    let item: OfflineItem?
    let event: OfflineEvent?
}

/// The item state machine: pure functions of an item, a verdict and the time, tested without
/// storage or network. queued → sending → delivered (leaves) / queued (interrupted, released) /
/// retrying / dead / conflict; a waiting item whose turn comes under another session identity →
/// waitingForUser (→ sending under its own); any waiting state → expired; dead, conflict and
/// expired items go back to queued when the app retries or resolves them.
extension OfflineItem {
    /// A new item for `request` (its `Authorization` removed), waiting.
    static func enqueued(
        _ request: HTTPRequest, requiresAuth: Bool, id: Int64, idempotencyKey: String, now: Date, expiry: Duration,
        sessionIdentity: String? = nil, attemptTimeout: Duration? = nil, deadline: Duration? = nil
    ) -> OfflineItem {
        var request = request
        request.headers.remove(name: "Authorization")
        request.knownOrigin = nil
        return OfflineItem(
            id: id, request: request, requiresAuth: requiresAuth, sessionIdentity: sessionIdentity,
            attemptTimeout: attemptTimeout, deadline: deadline, idempotencyKey: idempotencyKey, createdAt: now,
            expiresAt: now.addingTimeInterval(expiry.inSeconds), attempts: 0, lastError: nil, state: .queued,
            nextAttemptAt: nil, serverResponse: nil)
    }

    /// Whether a drain may replay it at `now` (waiting, or waiting for its user, and its backoff over).
    func isDue(at now: Date) -> Bool {
        (state.isWaiting || state == .waitingForUser) && (nextAttemptAt.map { now >= $0 } ?? true)
    }

    /// Whether it may be replayed while the session has `identity` (`nil`: signed out): it was
    /// queued under that identity, or under none.
    func belongs(to identity: String?) -> Bool {
        sessionIdentity == nil || sessionIdentity == identity
    }

    /// Its turn came under another session identity: it waits for its own, unsent (its backoff,
    /// if any, is kept).
    func parked() -> OfflineItemChange {
        var item = self
        item.state = .waitingForUser
        return OfflineItemChange(item: item, event: .waitingForUser(itemID: id))
    }

    /// Taken by a drain.
    func claimed() -> OfflineItem {
        var item = self
        item.state = .sending
        return item
    }

    /// Back to waiting after the process died (or its queue restarted) while it was in flight:
    /// it is replayed again with the same key.
    func recovered() -> OfflineItem {
        var item = self
        if item.state == .sending { item.state = .queued }
        return item
    }

    /// The change a replay's verdict makes.
    func settled(by verdict: ReplayVerdict, now: Date, limits: OfflineLimits) -> OfflineItemChange {
        var item = self
        switch verdict {
        case .delivered(let status):
            return OfflineItemChange(item: nil, event: .delivered(itemID: id, status: status))
        case .released:
            item.state = .queued
            return OfflineItemChange(item: item, event: nil)
        case .interrupted(let reason, let unanswered):
            item.state = .queued
            item.lastError = reason
            item.keyMayBeInProgress = item.keyMayBeInProgress || unanswered
            return OfflineItemChange(item: item, event: nil)
        case .keyInProgress(let response):
            // Once only: if the key still conflicts after the backoff, the 409 is taken at its word.
            item.keyMayBeInProgress = false
            item.state = .retrying
            let reason = "\(response.status) while an earlier send of its key may still be in progress"
            item.lastError = reason
            item.nextAttemptAt = now.addingTimeInterval(limits.backoff.delay(afterAttempt: item.attempts + 1).inSeconds)
            return OfflineItemChange(item: item, event: .retrying(itemID: id, attempt: item.attempts, error: reason))
        case .breakerOpen(let error, let retryAfter):
            // Nothing was sent: what an earlier send left (a key perhaps in progress) stands.
            item.state = .retrying
            item.lastError = "\(error)"
            let wait = retryAfter > .zero ? retryAfter : limits.backoff.delay(afterAttempt: item.attempts + 1)
            item.nextAttemptAt = min(now.addingTimeInterval(wait.inSeconds), max(now, expiresAt))
            return OfflineItemChange(item: item, event: .retrying(itemID: id, attempt: item.attempts, error: "\(error)"))
        case .failed(let error):
            item.attempts += 1
            item.lastError = "\(error)"
            // A timed-out send got no answer either: the server may still be working on it.
            item.keyMayBeInProgress = if case .timeout = error { true } else { false }
            if error.isRetryable && item.attempts < limits.maxAttempts {
                item.state = .retrying
                item.nextAttemptAt = item.nextAttempt(after: error, backoff: limits.backoff.delay(afterAttempt: item.attempts), now: now)
                return OfflineItemChange(item: item, event: .retrying(itemID: id, attempt: item.attempts, error: "\(error)"))
            }
            item.state = .dead
            item.nextAttemptAt = nil
            return OfflineItemChange(item: item, event: .deadLettered(itemID: id, error: "\(error)"))
        case .conflict(let response, let resolution):
            item.attempts += 1
            item.keyMayBeInProgress = false
            item.lastError = "conflict (\(response.status))"
            item.serverResponse = response
            if resolution == .manual {
                item.state = .conflict
                item.nextAttemptAt = nil
                return OfflineItemChange(item: item, event: .conflict(itemID: id, status: response.status))
            }
            if resolution != .serverWins && item.attempts >= limits.maxAttempts {
                item.state = .dead
                let reason = "still conflicting (\(response.status)) after \(item.attempts) attempts"
                return OfflineItemChange(item: item, event: .deadLettered(itemID: id, error: reason))
            }
            return item.resolved(by: resolution)
        }
    }

    /// When to replay it after a retryable `error`: after `backoff`, or later if a 429 or 503
    /// asked for more with `Retry-After` (seconds or an HTTP date), but never past its expiry,
    /// when it expires anyway (a huge `Retry-After` must not leave a date nobody reaches).
    private func nextAttempt(after error: NetworkError, backoff: Duration, now: Date) -> Date {
        var wait = backoff
        if case .serverError(let response) = error, let asked = RetryPolicy.retryAfter(in: response, now: now) {
            wait = max(wait, asked)
        }
        return min(now.addingTimeInterval(wait.inSeconds), max(now, expiresAt))
    }

    /// The change resolving its conflict makes: `serverWins` drops it; `clientWins` and `merge`
    /// queue the changed write under a new idempotency key (the server may have stored its answer
    /// to the old key). `manual` changes nothing.
    func resolved(by resolution: ConflictResolution) -> OfflineItemChange {
        var item = self
        switch resolution {
        case .manual:
            return OfflineItemChange(item: item, event: nil)
        case .serverWins:
            return OfflineItemChange(item: nil, event: .conflictResolved(itemID: id, resolution: "serverWins"))
        case .clientWins:
            if let etag = serverResponse?.headers["ETag"] {
                item.request.headers.replaceOrAdd(name: "If-Match", value: etag)
            }
        case .merge(let body):
            item.request.body = body
        }
        item.state = .queued
        item.nextAttemptAt = nil
        item.serverResponse = nil
        item.idempotencyKey = Self.nextRevision(of: item.idempotencyKey)
        item.keyMayBeInProgress = false   // the new key was never sent
        let name = resolution == .clientWins ? "clientWins" : "merge"
        return OfflineItemChange(item: item, event: .conflictResolved(itemID: id, resolution: name))
    }

    /// Expired, if it is still waiting (or waiting for its user) at `now` past its expiry (an
    /// item in flight is left to finish); `nil` otherwise.
    func expiring(now: Date) -> OfflineItemChange? {
        guard state == .queued || state == .retrying || state == .waitingForUser, now >= expiresAt else { return nil }
        var item = self
        item.state = .expired
        item.nextAttemptAt = nil
        return OfflineItemChange(item: item, event: .expired(itemID: id))
    }

    /// Queued again by the app (a dead letter, an expired item, or one waiting for its backoff):
    /// attempts start over and it gets a new expiry.
    func retried(now: Date, expiry: Duration) -> OfflineItem {
        var item = self
        item.state = .queued
        item.attempts = 0
        item.nextAttemptAt = nil
        item.expiresAt = now.addingTimeInterval(expiry.inSeconds)
        return item
    }

    /// The key of the write's next changed version: `<key>~1`, then `~2`… The revision only
    /// grows (it is read from the key itself, not from the attempts, which a retry resets), so a
    /// key is never reused for another body.
    private static func nextRevision(of key: String) -> String {
        guard let tilde = key.lastIndex(of: "~"), let revision = Int(key[key.index(after: tilde)...]) else {
            return key + "~1"   // the original key (which may contain "~" itself)
        }
        return "\(key[..<tilde])~\(revision + 1)"
    }
}
