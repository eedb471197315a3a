import Foundation

/// The durable queue of writes made without a network: each is stored in SQLite before its
/// caller is told it was queued, replayed in order by the ``SyncCoordinator`` (which takes the
/// next due items, several at a time, with `claim`, reports each delivery with `delivered` and
/// any other verdict with `settle`), and kept until it is delivered or the app removes it.
/// Decisions are the pure item state machine's (`OfflineItem+Transitions`); this actor stores
/// and publishes them.
///
/// Enqueues are committed together: the writes of one mailbox batch go to disk in one
/// transaction (one `fsync`) in ``batchHandled()``, and only then are their callers answered.
/// Deliveries too: a delivered item leaves the queue (and the waiting count) at once, and its
/// row is deleted with the others of its batch in one transaction, at the end of the batch or
/// with the next write, whichever comes first. A crash before that delete replays it under the
/// same idempotency key, which the durability contract allows. A claimed item is not written as
/// `sending`: if the process dies during its replay, the stored item is still waiting, and is
/// replayed with the same idempotency key, which is exactly what recovering a `sending` item
/// would do.
///
/// It runs on a thread of its own (``ThreadExecutor``), not on the cooperative pool: its SQLite
/// statements, their `fsync`s, and a wait for a file another process holds block only that
/// thread (and this queue's callers, who wait for their answers without holding a thread).
///
/// A storage error is answered (`storageFailed`) and published, except one that leaves the
/// store untrustworthy (an I/O error, a damaged file: ``SQLiteDatabase/Failure/isUnusable``):
/// then the queue fails, and its next instance opens the store again and rebuilds from it.
actor OfflineQueue: Component {
    /// The messages the offline queue understands: its whole API.
    enum Message: Sendable {
        /// Store a write (without its `Authorization`) durably; answer its id (ask).
        case enqueue(OfflineWrite, Reply<Int64>)
        /// Every item, in order (ask).
        case items(Reply<[OfflineItem]>)
        /// Queue a dead, expired, conflicting or backing-off item again (ask).
        case retry(Int64, Reply<Void>)
        /// Remove an item (ask).
        case remove(Int64, Reply<Void>)
        /// Remove every item (ask).
        case clear(Reply<Void>)
        /// Settle a parked conflict (ask).
        case resolve(Int64, ConflictResolution, Reply<Void>)
        /// The next items to replay, in order, at most `limit`, marked `sending`; none when none
        /// is due (ask, from a drain). `identity`: the session's now (`nil`: signed out); an item
        /// queued under another waits for its user instead (``OfflineItemState/waitingForUser``).
        case claim(limit: Int, identity: String?, Reply<[OfflineItem]>)
        /// A replay got a 2xx (`status`): the item leaves the queue now, its row is deleted with
        /// the batch's (tell, from a drain).
        case delivered(Int64, status: Int)
        /// Replays' verdicts; answers the items' new states (`nil`: it left the queue) (ask, from a drain).
        case settle([(id: Int64, verdict: ReplayVerdict)], Reply<[OfflineItemState?]>)
        /// Open the store now (tell, the client's first message): the stored writes are counted
        /// before any call needs the count.
        case open
        /// Renew the leases of the items being replayed (tell, from a shared queue's timer; a
        /// queue that owns its store has no leases).
        case renewLeases
        /// Count the waiting items again and answer the count (ask, when another client
        /// sharing the storage added some).
        case refresh(Reply<Int>)
    }

    /// What every instance runs with; it outlives instances.
    struct Environment: Sendable {
        /// The database file (`:memory:` for none).
        let path: String
        let limits: OfflineLimits
        let clock: any TimeSource
        let events: EventBroadcaster<OfflineEvent>
        /// How many items wait to be replayed (queued, retrying, sending), published on each change.
        let waiting: LatestValue<Int>
        /// Opened after the first open of the store (``Handle/loaded``).
        let loaded: Latch
        /// Where the items are stored.
        var storage: any OfflineStorage = SQLiteOfflineStorage()
        /// The ordering key of writes without one of their own (kept with each item; this
        /// queue replays every key in one order).
        var orderingKey = OfflineItem.defaultOrderingKey
        /// Makes each instance's thread: a new one per instance, never shared.
        var makeExecutor: @Sendable () -> ThreadExecutor = { ThreadExecutor(name: "courier.queue") }
    }

    private let environment: Environment
    /// This instance's thread: a restarted instance gets its own, and this one's ends with it.
    private let executor: ThreadExecutor
    private var store: (any OfflineItemStore)?
    /// The last failed open and when it happened.
    private var openFailure: (NetworkError, Duration)?
    private var items: [Int64: OfflineItem] = [:]
    /// Item ids in enqueue order; ids before `head` are gone. Removed ids further on are skipped.
    private var order: [Int64] = []
    private var head = 0
    private var lastID: Int64 = 0
    private var waitingCount = 0
    /// Enqueues of the current batch, stored together in ``batchHandled()``.
    private var staged: [(item: OfflineItem, reply: Reply<Int64>)] = []
    /// Delivered items, gone from memory, whose rows are deleted together (with their events)
    /// in ``batchHandled()`` or with the next write.
    private var deliveries: [(id: Int64, event: OfflineEvent)] = []

    init(_ environment: Environment) {
        self.environment = environment
        executor = environment.makeExecutor()
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Runs on the executor's thread, so that the database is closed (a WAL checkpoint, an
    /// `fsync`) there too.
    isolated deinit {}

    func handle(_ message: consuming Message) throws {
        if let failure = try openIfNeeded() {
            reject(message, with: failure)
            return
        }
        let now = environment.clock.currentDate
        switch consume message {
        case .enqueue(let write, let reply):
            do throws(NetworkError) {
                try write.request.validate()
            } catch {
                reply.fail(error)
                return
            }
            guard items.count + staged.count < environment.limits.maxItems else {
                reply.fail(NetworkError.queueFull(limit: environment.limits.maxItems))
                return
            }
            lastID += 1
            let key = write.request.headers["Idempotency-Key"] ?? UUID().uuidString
            var item = OfflineItem.enqueued(
                write.request, requiresAuth: write.requiresAuth, id: lastID, idempotencyKey: key, now: now,
                expiry: environment.limits.expiry, sessionIdentity: write.sessionIdentity, attemptTimeout: write.attemptTimeout,
                deadline: write.deadline)
            item.keyMayBeInProgress = write.keyMayBeInProgress
            item.orderingKey = write.orderingKey ?? environment.orderingKey
            staged.append((item, reply))
        case .items(let reply):
            try expireAll(now: now)
            reply.succeed(order[head...].compactMap { items[$0] })
        case .retry(let id, let reply):
            guard let item = items[id], item.state != .sending else {
                reply.fail(Self.noSuchItem(id))
                return
            }
            reply.resume(with: try save(item.retried(now: now, expiry: environment.limits.expiry), event: nil))
        case .remove(let id, let reply):
            guard items[id] != nil else {
                reply.fail(Self.noSuchItem(id))
                return
            }
            reply.resume(with: try apply([(id, OfflineItemChange(item: nil, event: .removed(itemID: id)))]))
        case .clear(let reply):
            let all = order[head...].filter { items[$0] != nil }
            reply.resume(with: try apply(all.map { ($0, OfflineItemChange(item: nil, event: .removed(itemID: $0))) }))
        case .resolve(let id, let resolution, let reply):
            guard let item = items[id], item.state == .conflict, resolution != .manual else {
                reply.fail(NetworkError.invalidRequest("offline item \(id) has no conflict to resolve that way"))
                return
            }
            reply.resume(with: try apply([(id, item.resolved(by: resolution))]))
        case .claim(let limit, let identity, let reply):
            reply.resume(with: try claim(limit: limit, identity: identity, now: now))
        case .open, .renewLeases:
            break
        case .refresh(let reply):
            reply.succeed(waitingCount)
        case .delivered(let id, let status):
            // Removed meanwhile, or settled by an earlier drain: nothing to do.
            guard items[id]?.state == .sending else { return }
            items[id] = nil
            waitingCount -= 1
            environment.waiting.publish(waitingCount)
            deliveries.append((id, .delivered(itemID: id, status: status)))
        case .settle(let verdicts, let reply):
            var changes: [(id: Int64, change: OfflineItemChange)] = []
            var states: [OfflineItemState?] = []
            for (id, verdict) in verdicts {
                guard let item = items[id], item.state == .sending else {
                    states.append(items[id]?.state)   // removed meanwhile, or settled by an earlier drain
                    continue
                }
                let change = item.settled(by: verdict, now: now, limits: environment.limits)
                changes.append((id, change))
                states.append(change.item?.state)
            }
            reply.resume(with: try apply(changes).map { states })
        }
    }

    /// Stores this batch's enqueues in one transaction, then answers their callers; deletes its
    /// deliveries in another.
    package func batchHandled() throws {
        if !deliveries.isEmpty { _ = try apply([]) }
        guard !staged.isEmpty, let store else { return }
        let batch = staged
        staged = []
        do {
            try store.insert(batch.map(\.item))
        } catch let failure as SQLiteDatabase.Failure where failure.isUnusable {
            // Their replies, released with this instance, answer `componentRestarted`.
            throw failure
        } catch {
            for (_, reply) in batch { reply.fail(NetworkError.storageFailed("the write could not be stored: \(error)")) }
            environment.events.publish(.storageFailed("\(error)"))
            return
        }
        for (item, _) in batch {
            items[item.id] = item
            order.append(item.id)
            waitingCount += 1
        }
        environment.waiting.publish(waitingCount)
        let publishes = environment.events.hasSubscribers
        for (item, reply) in batch {
            reply.succeed(item.id)
            if publishes { environment.events.publish(.enqueued(itemID: item.id)) }
        }
    }

    // MARK: Storage

    /// Opens the store on first use, recovering items that were in flight; `nil` when it is
    /// open, else why it cannot be. A failed open is tried again by the first message a second or
    /// more later: messages in between get the same answer at once, instead of each waiting out
    /// SQLite's busy timeout on a file another client holds.
    private func openIfNeeded() throws -> NetworkError? {
        guard store == nil else { return nil }
        let now = environment.clock.now
        if let (failure, at) = openFailure, now - at < .seconds(1) { return failure }
        do {
            let opened = try environment.storage.open(path: environment.path)
            if let recovery = opened.recovery {
                environment.events.publish(.recovered(salvaged: recovery.salvaged, lost: recovery.lost, movedTo: recovery.movedTo))
            }
            let (store, stored) = (opened.store, opened.items)
            lastID = opened.lastID
            let recovered = stored.filter { $0.state == .sending }.map { $0.recovered() }
            try store.update(recovered)
            self.store = store
            var all = Dictionary(uniqueKeysWithValues: stored.map { ($0.id, $0) })
            for item in recovered { all[item.id] = item }
            // A claim is not written, so any stored write may have been in flight when the last
            // process (or instance) ended: its key may still be in progress at the server, and
            // a 409 to its first replay waits once instead of counting as a conflict.
            for (id, item) in all where item.state.isWaiting || item.state == .waitingForUser { all[id]?.keyMayBeInProgress = true }
            items = all
            order = stored.map(\.id)
            head = 0
            waitingCount = all.values.filter { $0.state.isWaiting }.count
            environment.waiting.publish(waitingCount)
            environment.loaded.open()
            openFailure = nil
            return nil
        } catch let failure as SQLiteDatabase.Failure where failure.isUnusable {
            throw failure
        } catch {
            let failure = NetworkError.storageFailed("the offline queue's database could not be opened: \(error)")
            environment.events.publish(.storageFailed("\(failure)"))
            // From the failure, not the attempt: an attempt that waited out the busy timeout must
            // not leave the next message to wait it out again at once.
            openFailure = (failure, environment.clock.now)
            environment.loaded.open()   // nothing to count: readers are not held
            return failure
        }
    }

    private func reject(_ message: Message, with error: NetworkError) {
        switch message {
        case .enqueue(_, let reply): reply.fail(error)
        case .items(let reply): reply.fail(error)
        case .retry(_, let reply), .remove(_, let reply), .clear(let reply), .resolve(_, _, let reply):
            reply.fail(error)
        case .settle(_, let reply): reply.fail(error)
        case .claim(_, _, let reply): reply.fail(error)
        case .refresh(let reply): reply.fail(error)
        case .open, .delivered, .renewLeases: break
        }
    }

    /// Writes `changes` (new values, or removals), and deletes the deliveries not deleted yet,
    /// in one transaction, then applies them in memory and publishes their events (the
    /// deliveries' first: they came first). Deliveries whose delete failed are tried again with
    /// the next write (their items already left the queue: a restart before then replays them
    /// under the same key).
    private func apply(_ changes: [(id: Int64, change: OfflineItemChange)]) throws -> Result<Void, any Error> {
        guard let store else { return .failure(NetworkError.storageFailed("the offline queue is not open")) }
        do {
            try store.write(
                updating: changes.compactMap(\.change.item),
                deleting: deliveries.map(\.id) + changes.filter { $0.change.item == nil }.map(\.id))
        } catch let failure as SQLiteDatabase.Failure where failure.isUnusable {
            throw failure
        } catch {
            environment.events.publish(.storageFailed("\(error)"))
            return .failure(NetworkError.storageFailed("the offline queue could not be written: \(error)"))
        }
        if !deliveries.isEmpty, environment.events.hasSubscribers {
            for (_, event) in deliveries { environment.events.publish(event) }
        }
        deliveries.removeAll(keepingCapacity: true)
        guard !changes.isEmpty else { return .success(()) }
        for (id, change) in changes {
            let before = items[id]?.state.isWaiting ?? false
            items[id] = change.item
            let after = change.item?.state.isWaiting ?? false
            waitingCount += (after ? 1 : 0) - (before ? 1 : 0)
        }
        environment.waiting.publish(waitingCount)
        for change in changes.compactMap(\.change.event) { environment.events.publish(change) }
        return .success(())
    }

    private func save(_ item: OfflineItem, event: OfflineEvent?) throws -> Result<Void, any Error> {
        try apply([(item.id, OfflineItemChange(item: item, event: event))])
    }

    // MARK: Order

    /// The first `limit` waiting items in enqueue order that are due, up to the first that is
    /// not: items on the way that expired are marked so, and those queued under another session
    /// identity than `identity` wait for their user (they are never sent with another user's
    /// credentials; one of `identity`'s waiting for it is claimed in its turn). A waiting item
    /// whose backoff is not over holds back the ones after it (writes are replayed in the order
    /// they were made); dead, conflicting, expired items and another user's do not.
    private func claim(limit: Int, identity: String?, now: Date) throws -> Result<[OfflineItem], any Error> {
        while head < order.count, items[order[head]] == nil { head += 1 }
        if head > 1024, head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
        var changes: [(id: Int64, change: OfflineItemChange)] = []
        var claimed: [OfflineItem] = []
        var index = head
        while index < order.count, claimed.count < limit {
            defer { index += 1 }
            guard let item = items[order[index]], item.state.isWaiting || item.state == .waitingForUser else { continue }
            if let expired = item.expiring(now: now) {
                changes.append((item.id, expired))
                continue
            }
            guard item.belongs(to: identity) else {
                if item.state != .waitingForUser { changes.append((item.id, item.parked())) }
                continue
            }
            guard item.isDue(at: now) else { break }
            claimed.append(item.claimed())
        }
        if !changes.isEmpty, case .failure(let error) = try apply(changes) { return .failure(error) }
        let waitingBefore = waitingCount
        for item in claimed {
            if items[item.id]?.state == .waitingForUser { waitingCount += 1 }   // its user is back
            items[item.id] = item
        }
        if waitingCount != waitingBefore { environment.waiting.publish(waitingCount) }
        return .success(claimed)
    }

    /// Marks every waiting item past its expiry as expired.
    private func expireAll(now: Date) throws {
        let changes = order[head...].compactMap { id in items[id]?.expiring(now: now).map { (id, $0) } }
        if !changes.isEmpty { _ = try apply(changes) }
    }

    private static func noSuchItem(_ id: Int64) -> NetworkError {
        .invalidRequest("no offline item \(id) in a state that allows this")
    }
}
