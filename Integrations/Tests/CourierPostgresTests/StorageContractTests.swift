import Courier
import CourierPostgres
import Foundation
import Testing

extension PostgresTests {
    /// The rules of `SharedOfflineStorage` (its doc comment), checked on PostgreSQL.
    @Suite(.timeLimit(.minutes(5))) struct StorageContractTests {
        let lease = Duration.seconds(30)
        var now: Date { Items.start }

        @Test func insertsReadBackInIDOrderWithEveryField() async throws {
            try await TestPostgres.withStorage { storage, _ in
                var conflicted = Items.retrying(Items.write(key: "a", sequence: 1, identity: "alice"), until: now)
                conflicted = OfflineItem(
                    id: 0, request: conflicted.request, requiresAuth: true, sessionIdentity: "alice", attemptTimeout: .milliseconds(1500),
                    deadline: .seconds(9), idempotencyKey: "key-1", createdAt: now, expiresAt: now.addingTimeInterval(60), attempts: 2,
                    lastError: "409", state: .conflict, nextAttemptAt: nil,
                    serverResponse: HTTPResponse(status: 409, headers: ["ETag": "\"v2\""], body: Data("taken".utf8)), orderingKey: "a"
                )
                let ids = try await storage.insert([Items.write(sequence: 0), conflicted])
                #expect(ids.count == 2 && ids[0] < ids[1])
                let more = try await storage.insert([Items.write(sequence: 2)])
                #expect(more[0] > ids[1])

                let items = try await storage.items()
                #expect(items.map(\.id) == ids + more)
                let stored = items[1]
                #expect(stored.request.method == .post)
                #expect(stored.request.url.absoluteString == "http://127.0.0.1:9/writes/1")
                #expect(stored.request.headers["X-Sequence"] == "1")
                #expect(stored.request.body == Data(#"{"sequence":1}"#.utf8))
                #expect(stored.sessionIdentity == "alice" && stored.requiresAuth)
                #expect(stored.attemptTimeout == .milliseconds(1500) && stored.deadline == .seconds(9))
                #expect(stored.idempotencyKey == "key-1" && stored.attempts == 2 && stored.lastError == "409")
                #expect(stored.state == .conflict && stored.orderingKey == "a")
                #expect(stored.createdAt == now && stored.expiresAt == now.addingTimeInterval(60))
                #expect(stored.serverResponse?.status == 409 && stored.serverResponse?.headers["ETag"] == "\"v2\"")
                #expect(stored.serverResponse?.body == Data("taken".utf8))
                #expect(try await storage.waitingCount() == 2)
            }
        }

        @Test func aKeysHeadIsClaimedAloneAndKeysGoInParallel() async throws {
            try await TestPostgres.withStorage { storage, _ in
                let ids = try await storage.insert([
                    Items.write(key: "a", sequence: 0), Items.write(key: "a", sequence: 1),
                    Items.write(key: "b", sequence: 0), Items.write(key: "b", sequence: 1),
                ])
                let first = try await storage.claim(owner: "r1", limit: 10, identity: nil, now: now, lease: lease)
                #expect(first.map(\.id) == [ids[0], ids[2]])
                // The heads are leased: the keys are held, their later items wait.
                #expect(try await storage.claim(owner: "r2", limit: 10, identity: nil, now: now, lease: lease).isEmpty)
                // Delivered: the next of the key is claimable, by anyone.
                try await storage.write(owner: "r1", updating: [], deleting: [ids[0]])
                #expect(try await storage.claim(owner: "r2", limit: 10, identity: nil, now: now, lease: lease).map(\.id) == [ids[1]])
                #expect(try await storage.waitingCount() == 3)
            }
        }

        @Test func claimsAtMostTheLimitInIDOrder() async throws {
            try await TestPostgres.withStorage { storage, _ in
                let ids = try await storage.insert((0..<5).map { Items.write(key: "k\(4 - $0)", sequence: $0) })
                let claimed = try await storage.claim(owner: "r1", limit: 3, identity: nil, now: now, lease: lease)
                #expect(claimed.map(\.id) == Array(ids.prefix(3)))
                #expect(try await storage.claim(owner: "r2", limit: 3, identity: nil, now: now, lease: lease).map(\.id) == Array(ids.suffix(2)))
            }
        }

        @Test func anExpiredLeaseIsClaimedAgainWithTheSameKey() async throws {
            try await TestPostgres.withStorage { storage, _ in
                _ = try await storage.insert([Items.write(key: "a", sequence: 0)])
                let first = try await storage.claim(owner: "dead", limit: 1, identity: nil, now: now, lease: lease)
                let later = now.addingTimeInterval(31)
                let again = try await storage.claim(owner: "r2", limit: 1, identity: nil, now: later, lease: lease)
                #expect(again.map(\.id) == first.map(\.id))
                #expect(again.first?.idempotencyKey == first.first?.idempotencyKey)
                // The first owner lost it: its renew says so, and its write is fenced off.
                #expect(try await storage.renew(owner: "dead", ids: first.map(\.id), now: later, lease: lease) == first.map(\.id))
                try await storage.write(owner: "dead", updating: [Items.retrying(first[0], until: later)], deleting: [])
                #expect(try await storage.items().first?.state == .queued)
                #expect(try await storage.renew(owner: "r2", ids: first.map(\.id), now: later, lease: lease).isEmpty)
            }
        }

        @Test func renewingKeepsTheLeaseAlive() async throws {
            try await TestPostgres.withStorage { storage, _ in
                _ = try await storage.insert([Items.write(key: "a")])
                let claimed = try await storage.claim(owner: "r1", limit: 1, identity: nil, now: now, lease: lease)
                #expect(try await storage.renew(owner: "r1", ids: claimed.map(\.id), now: now.addingTimeInterval(25), lease: lease).isEmpty)
                // 50 s after the claim, 25 s after the renewal: still held.
                #expect(try await storage.claim(owner: "r2", limit: 1, identity: nil, now: now.addingTimeInterval(50), lease: lease).isEmpty)
                #expect(try await storage.claim(owner: "r2", limit: 1, identity: nil, now: now.addingTimeInterval(56), lease: lease).count == 1)
            }
        }

        @Test func backoffHoldsTheKeyUntilItIsOver() async throws {
            try await TestPostgres.withStorage { storage, _ in
                let ids = try await storage.insert([Items.write(key: "a", sequence: 0), Items.write(key: "a", sequence: 1)])
                let claimed = try await storage.claim(owner: "r1", limit: 1, identity: nil, now: now, lease: lease)
                let until = now.addingTimeInterval(10)
                try await storage.write(owner: "r1", updating: [Items.retrying(claimed[0], until: until)], deleting: [])
                // Released, but in backoff: neither it nor the later item of its key goes.
                #expect(try await storage.claim(owner: "r2", limit: 5, identity: nil, now: now.addingTimeInterval(5), lease: lease).isEmpty)
                let retried = try await storage.claim(owner: "r2", limit: 5, identity: nil, now: until, lease: lease)
                #expect(retried.map(\.id) == [ids[0]] && retried[0].state == .retrying && retried[0].attempts == 1)
            }
        }

        @Test func anotherIdentitysItemsNeitherGoNorHoldTheirKeyBack() async throws {
            try await TestPostgres.withStorage { storage, _ in
                let ids = try await storage.insert([
                    Items.write(key: "a", sequence: 0, identity: "bob"), Items.write(key: "a", sequence: 1, identity: "alice"),
                    Items.write(key: "a", sequence: 2),
                ])
                #expect(try await storage.claim(owner: "r1", limit: 5, identity: "alice", now: now, lease: lease).map(\.id) == [ids[1]])
                try await storage.write(owner: "r1", updating: [], deleting: [ids[1]])
                // Signed out: only the item queued without an identity.
                #expect(try await storage.claim(owner: "r1", limit: 5, identity: nil, now: now, lease: lease).map(\.id) == [ids[2]])
                #expect(try await storage.waitingCount() == 2)
            }
        }

        @Test func deadAndConflictedItemsDoNotHoldTheirKey() async throws {
            try await TestPostgres.withStorage { storage, _ in
                let ids = try await storage.insert([
                    Items.write(key: "a", sequence: 0, state: .dead), Items.write(key: "a", sequence: 1, state: .conflict),
                    Items.write(key: "a", sequence: 2),
                ])
                #expect(try await storage.claim(owner: "r1", limit: 5, identity: nil, now: now, lease: lease).map(\.id) == [ids[2]])
                #expect(try await storage.waitingCount() == 1)
            }
        }

        @Test func writesWithoutAnOwnerAndDeletesApplyWhoeverHoldsTheItem() async throws {
            try await TestPostgres.withStorage { storage, _ in
                let ids = try await storage.insert([Items.write(key: "a", sequence: 0), Items.write(key: "b", sequence: 0)])
                let claimed = try await storage.claim(owner: "r1", limit: 5, identity: nil, now: now, lease: lease)
                // The app's own retry (no owner) rewrites a leased item and releases it.
                try await storage.write(owner: nil, updating: [Items.retrying(claimed[0], until: now)], deleting: [])
                // Another replica's delete of a delivered item goes through although r1 holds it.
                try await storage.write(owner: "r2", updating: [], deleting: [ids[1]])
                let items = try await storage.items()
                #expect(items.map(\.id) == [ids[0]] && items[0].state == .retrying)
                #expect(try await storage.renew(owner: "r1", ids: ids, now: now, lease: lease) == ids)
                #expect(try await storage.claim(owner: "r2", limit: 5, identity: nil, now: now, lease: lease).map(\.id) == [ids[0]])
            }
        }

        @Test func insertsWakeTheOtherReplicas() async throws {
            try await TestPostgres.withStorage { storage, client in
                try await storage.prepare()
                let other = PostgresOfflineStorage(client: client, table: storage.table)
                var own = storage.wakeUps().makeAsyncIterator()
                var others = other.wakeUps().makeAsyncIterator()
                // The first wake-up says the listener is connected (and covers what it missed).
                _ = await own.next()
                _ = await others.next()
                _ = try await storage.insert([Items.write()])
                #expect(await others.next() != nil)
                _ = try await other.insert([Items.write(key: "b")])
                #expect(await own.next() != nil)
            }
        }

        @Test func eachStoragesInsertsCarryItsOriginAndOutboxEnqueuesNone() async throws {
            try await TestPostgres.withStorage { storage, client in
                try await storage.prepare()
                let other = PostgresOfflineStorage(client: client, table: storage.table)
                // What the listeners filter on: a storage's wake-ups skip its own origin.
                try await client.withConnection { connection in
                    try await connection.listen(on: storage.channel) { notifications in
                        var iterator = notifications.makeAsyncIterator()
                        _ = try await storage.insert([Items.write(key: "a")])
                        let own = try await iterator.next()?.payload
                        _ = try await storage.insert([Items.write(key: "a", sequence: 1)])
                        let ownAgain = try await iterator.next()?.payload
                        _ = try await other.insert([Items.write(key: "b")])
                        let others = try await iterator.next()?.payload
                        _ = try await client.withConnection { outbox in
                            try await storage.enqueue(Items.write(key: "c").request, on: outbox)
                        }
                        let outbox = try await iterator.next()?.payload
                        #expect(own?.isEmpty == false)
                        #expect(own == ownAgain)
                        #expect(others?.isEmpty == false && others != own)
                        #expect(outbox == "")
                    }
                }
            }
        }

        @Test func concurrentReplicasClaimEachItemOnceAndKeepEachKeysOrder() async throws {
            try await TestPostgres.withStorage(connections: 12) { storage, _ in
                let keys = 12
                let perKey = 25
                var items: [OfflineItem] = []
                for sequence in 0..<perKey { for key in 0..<keys { items.append(Items.write(key: "k\(key)", sequence: sequence)) } }
                _ = try await storage.insert(items)
                let log = DeliveryLog()
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for replica in 0..<6 {
                        group.addTask {
                            while true {
                                let claimed = try await storage.claim(owner: "r\(replica)", limit: 4, identity: nil, now: now, lease: lease)
                                if claimed.isEmpty {
                                    if try await storage.waitingCount() == 0 { return }
                                    await Task.yield()
                                    continue
                                }
                                for item in claimed { await log.deliver(item) }
                                try await storage.write(owner: "r\(replica)", updating: [], deleting: claimed.map(\.id))
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                let (deliveries, outOfOrder, duplicates) = await log.summary()
                #expect(deliveries == keys * perKey)
                #expect(duplicates == 0)
                #expect(outOfOrder == 0)
            }
        }
    }
}

/// What the replicas of a test delivered: each item's id once, each key's sequences in order.
actor DeliveryLog {
    private var ids = Set<Int64>()
    private var duplicates = 0
    private var outOfOrder = 0
    private var lastSequence: [String: Int] = [:]

    func deliver(_ item: OfflineItem) {
        if !ids.insert(item.id).inserted {
            duplicates += 1
            return
        }
        defer { wake() }
        let sequence = Int(item.request.headers["X-Sequence"] ?? "") ?? -1
        if sequence <= lastSequence[item.orderingKey, default: -1] { outOfOrder += 1 }
        lastSequence[item.orderingKey] = sequence
    }

    func summary() -> (deliveries: Int, outOfOrder: Int, duplicates: Int) { (ids.count, outOfOrder, duplicates) }

    func deliveredIDs() -> Set<Int64> { ids }

    /// Returns once `deliveries` items were delivered.
    func waitFor(deliveries: Int) async {
        if ids.count >= deliveries { return }
        await withCheckedContinuation { continuation in waiters.append((deliveries, continuation)) }
    }

    private var waiters: [(Int, CheckedContinuation<Void, Never>)] = []

    private func wake() {
        let ready = waiters.filter { $0.0 <= ids.count }
        waiters.removeAll { $0.0 <= ids.count }
        for (_, continuation) in ready { continuation.resume() }
    }
}
