import Foundation

/// The offline queue of a client that shares its queue with other clients (the replicas of a
/// service) through a ``SharedOfflineStorage``: it takes the same messages as ``OfflineQueue``,
/// so the handle, the drain and ``ClientOfflineQueue`` are the same, but keeps no index of the
/// items in memory: the storage holds them and decides whose turn each ordering key is (leases),
/// while the item state machine (`OfflineItem+Transitions`) still decides every change.
///
/// In memory it holds only what this client is replaying: the items it claimed (leased to its
/// `owner`), whose leases it renews every third of a lease, and forgets when the storage says
/// another replica took them. Enqueues of one mailbox batch are inserted in one call (one
/// transaction) in ``batchHandled()``, and only then answered; deliveries are deleted with the
/// next write, at the end of the batch, or before the next claim, whichever comes first (the key's
/// next item is not claimable before its predecessor's delete).
///
/// The storage is asynchronous and never blocks a thread, so the queue runs on the cooperative
/// pool. A storage error is answered (`storageFailed`) and published, never thrown: a database
/// that cannot be reached ends drains quietly, and the periodic drain tries again.
actor SharedOfflineQueue: Component {
    typealias Message = OfflineQueue.Message

    /// What every instance runs with; it outlives instances.
    struct Environment: Sendable {
        let storage: any SharedOfflineStorage
        /// This client's name on its leases: the same across restarts of the queue, so that an
        /// instance's settles of items its predecessor claimed still pass the fence.
        let owner: String
        let lease: Duration
        /// The ordering key of writes without one of their own.
        let orderingKey: String
        let limits: OfflineLimits
        let clock: any TimeSource
        let events: EventBroadcaster<OfflineEvent>
        let waiting: LatestValue<Int>
        let loaded: Latch
        /// Its own mailbox, for the lease timer's messages.
        let mailbox: Mailbox<Message>
    }

    /// Items claimed per ask at most, whatever the drain asks: a key's turn taken by a replica
    /// stays its until the replay ends, so a replica that claimed every key would keep the
    /// others idle.
    static let claimBatch = 8

    private let environment: Environment
    /// Items this client claimed and is replaying, by id (marked `sending`).
    private var sending: [Int64: OfflineItem] = [:]
    /// Enqueues of the current batch, inserted together in ``batchHandled()``.
    private var staged: [(item: OfflineItem, reply: Reply<Int64>)] = []
    /// Delivered items, gone from `sending`, whose rows are deleted with the next write.
    private var deliveries: [(id: Int64, event: OfflineEvent)] = []
    private var waitingCount = 0
    private var counted = false

    init(_ environment: Environment, scope: SupervisedScope) {
        self.environment = environment
        let (mailbox, clock, interval) = (environment.mailbox, environment.clock, environment.lease / 3)
        scope.spawn("leaseRenewal") {
            while !Task.isCancelled {
                try await clock.sleep(for: interval)
                try mailbox.send(.renewLeases)
            }
        }
    }

    func handle(_ message: consuming Message) async {
        let now = environment.clock.currentDate
        switch consume message {
        case .open:
            if !counted { _ = await refreshCount() }
        case .enqueue(let write, let reply):
            do throws(NetworkError) {
                try write.request.validate()
            } catch {
                reply.fail(error)
                return
            }
            guard waitingCount + staged.count < environment.limits.maxItems else {
                reply.fail(NetworkError.queueFull(limit: environment.limits.maxItems))
                return
            }
            let key = write.request.headers["Idempotency-Key"] ?? UUID().uuidString
            var item = OfflineItem.enqueued(
                write.request, requiresAuth: write.requiresAuth, id: 0, idempotencyKey: key, now: now,
                expiry: environment.limits.expiry, sessionIdentity: write.sessionIdentity, attemptTimeout: write.attemptTimeout,
                deadline: write.deadline)
            item.orderingKey = write.orderingKey ?? environment.orderingKey
            staged.append((item, reply))
        case .items(let reply):
            reply.resume(with: await stored().map { items in items.map { sending[$0.id] ?? $0 } })
        case .retry(let id, let reply):
            reply.resume(with: await change(id) { item in
                guard item.state != .sending else { return nil }
                return OfflineItemChange(item: item.retried(now: now, expiry: self.environment.limits.expiry), event: nil)
            })
        case .remove(let id, let reply):
            reply.resume(with: await change(id) { OfflineItemChange(item: nil, event: .removed(itemID: $0.id)) })
        case .clear(let reply):
            switch await stored() {
            case .success(let items):
                reply.resume(with: await write(
                    owner: nil, items.map { ($0.id, OfflineItemChange(item: nil, event: .removed(itemID: $0.id))) }))
            case .failure(let error):
                reply.fail(error)
            }
        case .resolve(let id, let resolution, let reply):
            let result = await change(id) { item in
                guard item.state == .conflict, resolution != .manual else { return nil }
                return item.resolved(by: resolution)
            }
            if case .failure(NetworkError.invalidRequest) = result {
                reply.fail(NetworkError.invalidRequest("offline item \(id) has no conflict to resolve that way"))
            } else {
                reply.resume(with: result)
            }
        case .claim(let limit, let identity, let reply):
            reply.resume(with: await claim(limit: limit, identity: identity, now: now))
        case .delivered(let id, let status):
            // Lost to another replica, or removed meanwhile: its delete is made anyway (the
            // server saw the key), but it was not counted here.
            if sending.removeValue(forKey: id) != nil { publish(waitingCount - 1) }
            deliveries.append((id, .delivered(itemID: id, status: status)))
        case .settle(let verdicts, let reply):
            var changes: [(id: Int64, change: OfflineItemChange)] = []
            var states: [OfflineItemState?] = []
            for (id, verdict) in verdicts {
                // Not ours any more (another replica took it, or the app removed it): nothing to write.
                guard let item = sending[id] else {
                    states.append(nil)
                    continue
                }
                let change = item.settled(by: verdict, now: now, limits: environment.limits)
                changes.append((id, change))
                states.append(change.item?.state)
            }
            reply.resume(with: await write(owner: environment.owner, changes).map { states })
        case .renewLeases:
            await renew(now: now)
        case .refresh(let reply):
            switch await refreshCount() {
            case .success(let count): reply.succeed(count)
            case .failure(let error): reply.fail(error)
            }
        }
    }

    /// Inserts this batch's enqueues in one call, then answers their callers; deletes its
    /// deliveries.
    func batchHandled() async {
        if !deliveries.isEmpty { _ = await write(owner: environment.owner, []) }
        guard !staged.isEmpty else { return }
        let batch = staged
        staged = []
        let ids: [Int64]
        do {
            ids = try await environment.storage.insert(batch.map(\.item))
        } catch {
            let failure = storageFailed("the write could not be stored", error)
            for (_, reply) in batch { reply.fail(failure) }
            return
        }
        publish(waitingCount + batch.count)
        let publishes = environment.events.hasSubscribers
        for ((_, reply), id) in zip(batch, ids) {
            reply.succeed(id)
            if publishes { environment.events.publish(.enqueued(itemID: id)) }
        }
    }

    // MARK: Turns

    /// Claims the next turns: each key's next due item (at most ``claimBatch``), after deleting
    /// the delivered ones (so that their keys' next items are due). Items past their expiry are
    /// written as expired instead of replayed.
    private func claim(limit: Int, identity: String?, now: Date) async -> Result<[OfflineItem], any Error> {
        if !deliveries.isEmpty, case .failure(let error) = await write(owner: environment.owner, []) { return .failure(error) }
        let claimed: [OfflineItem]
        do {
            claimed = try await environment.storage.claim(
                owner: environment.owner, limit: max(1, min(limit, Self.claimBatch)), identity: identity, now: now,
                lease: environment.lease)
        } catch {
            return .failure(storageFailed("the offline queue's turns could not be claimed", error))
        }
        var expired: [(id: Int64, change: OfflineItemChange)] = []
        var due: [OfflineItem] = []
        for item in claimed {
            if let change = item.expiring(now: now) {
                expired.append((item.id, change))
                sending[item.id] = item.claimed()   // counted as waiting until the write says otherwise
                continue
            }
            var mine = item.claimed()
            // Its lease may have been another replica's that died mid-replay: the server may
            // still be applying its key, so a 409 waits once instead of counting as a conflict.
            mine.keyMayBeInProgress = true
            due.append(mine)
        }
        for item in due { sending[item.id] = item }
        if !expired.isEmpty { _ = await write(owner: environment.owner, expired) }
        // Nothing due: what others did since is counted now, so the periodic drain sees it.
        if claimed.isEmpty { _ = await refreshCount() }
        return .success(due)
    }

    /// Renews the leases of the items being replayed; forgets those another replica took. Then
    /// counts again what waits (the slow poll behind the storage's wake-ups).
    private func renew(now: Date) async {
        if !sending.isEmpty {
            do {
                let lost = try await environment.storage.renew(
                    owner: environment.owner, ids: Array(sending.keys), now: now, lease: environment.lease)
                for id in lost { sending[id] = nil }
            } catch {
                _ = storageFailed("the offline queue's leases could not be renewed", error)
            }
        }
        _ = await refreshCount()
    }

    // MARK: Storage

    /// Writes `changes` (new values, or removals) and the deliveries not deleted yet in one
    /// call, fenced by `owner`, then applies them here and publishes their events.
    private func write(owner: String?, _ changes: [(id: Int64, change: OfflineItemChange)]) async -> Result<Void, any Error> {
        let deleted = deliveries
        do {
            try await environment.storage.write(
                owner: owner, updating: changes.compactMap(\.change.item),
                deleting: deleted.map(\.id) + changes.filter { $0.change.item == nil }.map(\.id))
        } catch {
            if owner != nil {
                // Their leases expire and another turn replays them: not this instance's to settle any more.
                for (id, _) in changes { sending[id] = nil }
            }
            return .failure(storageFailed("the offline queue could not be written", error))
        }
        deliveries.removeFirst(deleted.count)
        if environment.events.hasSubscribers {
            for (_, event) in deleted { environment.events.publish(event) }
        }
        var count = waitingCount
        for (id, change) in changes {
            let before = sending.removeValue(forKey: id)?.state.isWaiting ?? false
            let after = change.item?.state.isWaiting ?? false
            count += (after ? 1 : 0) - (before ? 1 : 0)
        }
        // The app's own change may touch items another replica holds: counted again from the storage.
        if owner == nil, !changes.isEmpty, case .success = await refreshCount() {} else { publish(count) }
        for event in changes.compactMap(\.change.event) { environment.events.publish(event) }
        return .success(())
    }

    /// Applies `transition` to stored item `id` and writes it for the app (whoever holds it).
    /// `transition` returning `nil`: the item is not in a state that allows it.
    private func change(_ id: Int64, _ transition: (OfflineItem) -> OfflineItemChange?) async -> Result<Void, any Error> {
        let items: [OfflineItem]
        switch await stored() {
        case .success(let all): items = all
        case .failure(let error): return .failure(error)
        }
        guard let item = items.first(where: { $0.id == id }).map({ sending[$0.id] ?? $0 }), let change = transition(item) else {
            return .failure(NetworkError.invalidRequest("no offline item \(id) in a state that allows this"))
        }
        return await write(owner: nil, [(id, change)])
    }

    private func stored() async -> Result<[OfflineItem], any Error> {
        do {
            return .success(try await environment.storage.items())
        } catch {
            return .failure(storageFailed("the offline queue could not be read", error))
        }
    }

    /// Reads how many items wait (every replica's), publishes it, and opens `loaded` after the
    /// first count (or the first failure: readers are not held by a storage that is down).
    private func refreshCount() async -> Result<Int, NetworkError> {
        defer { environment.loaded.open() }
        do {
            let count = try await environment.storage.waitingCount()
            counted = true
            publish(count)
            return .success(count)
        } catch {
            return .failure(storageFailed("the offline queue could not be counted", error))
        }
    }

    private func publish(_ count: Int) {
        waitingCount = max(0, count)
        environment.waiting.publish(waitingCount)
    }

    /// The error a caller gets for a storage failure, published as an event too.
    private func storageFailed(_ what: String, _ error: any Error) -> NetworkError {
        environment.events.publish(.storageFailed("\(error)"))
        return .storageFailed("\(what): \(error)")
    }
}
