/// One pass over the offline queue: claim the next due items (several per ask), replay each in
/// order with its idempotency key, hand each verdict back to the queue, until nothing is due,
/// connectivity is lost, or an item must wait for its backoff (the items after it wait too:
/// writes go out in the order they were made; those claimed with it are released). A delivery
/// is told to the queue without a wait (its row is deleted with the batch's); any other verdict
/// is an ask, whose answer says whether the drain goes on. Runs in a task of its coordinator's
/// scope; the coordinator learns of its end by a message, or fails with it (see ``DrainQueue``).
struct Drain: Sendable {
    /// Sends a replay of `item` (as `request`, its key set) through the request pipeline (auth
    /// under the item's session identity, its own timeouts, logging, no retries of its own).
    typealias Send = @Sendable (_ request: HTTPRequest, _ item: OfflineItem) async -> Result<HTTPResponse, NetworkError>

    /// Items claimed per ask: enough that asks cost little beside replays, few enough that a
    /// drain that ends early releases little.
    static let claimLimit = 64

    let queue: any DrainQueue
    let send: Send
    let resolver: ConflictResolver
    let connectivity: LatestValue<ConnectivityState>
    let progress: EventBroadcaster<SyncProgress>
    /// Keep going while the monitor says offline (the app asked for this drain).
    let forced: Bool
    /// The session's identity now (`nil`: signed out, or no session): items queued under
    /// another wait for their user.
    var identity: @Sendable () async -> String? = { nil }

    /// Drains, publishing progress as it goes, and returns the last progress. Throws what
    /// breaks the queue's contract (an error other than a ``NetworkError``).
    func run() async throws -> SyncProgress {
        // Counted once the store is open: a drain started at launch counts the stored writes.
        var report = SyncProgress(total: await queue.waitingCount())
        progress.publish(report)
        draining: while mayGoOn {
            let identity = await identity()
            guard let batch = try await answer({ try await queue.claim(limit: Self.claimLimit, identity: identity) }),
                  !batch.isEmpty else { break }
            // Writes added while it runs count too: what it settled, and what still waits
            // (this batch included). Read after the claim: the queue has handled every delivery before it.
            report.total = max(report.total, report.done + report.failed + queue.waiting.value)
            for (index, item) in batch.enumerated() {
                guard mayGoOn else {
                    _ = try await answer { try await queue.settle(batch[index...].map { ($0.id, .released) }) }
                    break draining
                }
                report.currentItem = item.id
                progress.publish(report)
                let verdict = await replay(item)
                if case .delivered(let status) = verdict {
                    guard try answer({ try queue.delivered(item.id, status: status) }) != nil else { break draining }
                    report.done += 1
                    report.currentItem = nil
                    progress.publish(report)
                    continue
                }
                guard let state = try await answer({ try await queue.settle(item.id, verdict) }) else { break draining }
                switch verdict {
                case .conflict(_, .serverWins): report.done += 1
                default: report.failed += 1
                }
                report.currentItem = nil
                progress.publish(report)
                // A lost connection ends the drain; so does an item waiting for its backoff, which
                // holds back the ones after it (only its key's, when the queue orders by key: the
                // others of this batch have keys of their own, and its key's next is not claimable).
                if verdict.endsDrain || (state == .retrying && !queue.ordersByKey) {
                    _ = try await answer { try await queue.settle(batch[(index + 1)...].map { ($0.id, .released) }) }
                    break draining
                }
            }
        }
        report.currentItem = nil
        report.isFinished = true
        progress.publish(report)
        return report
    }

    /// The queue's answer, or `nil` when it could not give one (a ``NetworkError``), which ends
    /// the drain; any other error breaks the queue's contract and is thrown.
    private func answer<T>(_ call: () async throws -> T) async throws -> T? {
        do {
            return try await call()
        } catch is NetworkError {
            return nil
        }
    }

    private func answer<T>(_ call: () throws -> T) throws -> T? {
        do {
            return try call()
        } catch is NetworkError {
            return nil
        }
    }

    /// Whether the drain may replay another item: not stopped, and connectivity not lost
    /// (unless the app asked for it).
    private var mayGoOn: Bool {
        !Task.isCancelled && (forced || connectivity.value != .offline)
    }

    /// Replays `item` once and judges the outcome.
    private func replay(_ item: OfflineItem) async -> ReplayVerdict {
        var request = item.request
        request.headers.replaceOrAdd(name: "Idempotency-Key", value: item.idempotencyKey)
        if Task.isCancelled { return .interrupted("the drain was stopped", unanswered: false) }
        switch await send(request, item) {
        case .success(let response) where response.isSuccess:
            return .delivered(status: response.status)
        case .success(let response):
            return .failed(.serverError(response))
        case .failure(let error):
            return verdict(for: error, of: item, as: request)
        }
    }

    /// The verdict of a replay that failed with `error`. What says nothing about the item ends
    /// the drain without counting an attempt: a lost connection, a server that cannot be reached,
    /// a stop or a busy client, and
    /// the session's credentials for an item that uses them (they would fail every item alike).
    /// A 409/412 goes to the resolver, unless the key's last send got no answer (the server may
    /// still be processing it); anything else (a timeout, a 4xx or 5xx answer to this
    /// write, a security refusal, an unreadable request) counts as a failure, so an item that
    /// can never go through ends as a dead letter instead of holding the queue.
    func verdict(for error: NetworkError, of item: OfflineItem, as sent: HTTPRequest) -> ReplayVerdict {
        switch error {
        case .noConnection, .connectionLost, .cancelled, .componentRestarted:
            // Cut or abandoned mid-exchange, perhaps after the server took the request.
            return .interrupted("\(error)", unanswered: true)
        case .overloaded, .componentUnavailable, .cannotConnect:
            // Never sent (or no connection made): it would fail every item alike.
            return .interrupted("\(error)", unanswered: false)
        case .circuitOpen(_, let retryAfter):
            // Never sent: not now, and not an attempt; it waits for the breaker's probes.
            return .breakerOpen(error, retryAfter: retryAfter)
        case .unauthorized where item.requiresAuth, .invalidToken where item.requiresAuth:
            return .interrupted("\(error)", unanswered: false)
        case .conflict(let response):
            return conflicted(item, sent, response)
        case .serverError(let response) where response.status == 412:
            return conflicted(item, sent, response)
        default:
            return .failed(error)
        }
    }

    private func conflicted(_ item: OfflineItem, _ sent: HTTPRequest, _ response: HTTPResponse) -> ReplayVerdict {
        // Not for the resolver: `merge` or `clientWins` would send a new key beside a write the
        // server may be applying, and `manual` would park a write that is going through.
        if item.keyMayBeInProgress { return .keyInProgress(response) }
        return .conflict(response, resolver.resolution(for: OfflineConflict(itemID: item.id, request: sent, response: response)))
    }
}
