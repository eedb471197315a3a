import Courier
import Foundation

/// Checks that a ``SharedOfflineStorage`` keeps the contract its doc comment states: run
/// ``check(_:)`` from a test against the storage under test (each check gets a fresh, empty
/// storage from the closure), and ``checkWakeUps(inserting:listening:)`` with two clients'
/// storages of the same data. The first broken rule throws a ``Violation`` naming the check and
/// what was seen. Times are passed in (`now`), never read from a clock, so the checks are
/// deterministic; only the wake-up check waits, for a notification a server delivers.
public enum SharedOfflineStorageContract {
    /// A rule of the contract the storage broke.
    public struct Violation: Error, CustomStringConvertible {
        /// The check that failed (one of ``checks``, or the wake-up check).
        public let check: String
        /// What was expected and what was seen.
        public let detail: String

        /// States the broken check and what was seen.
        public var description: String { "SharedOfflineStorage contract, \(check): \(detail)" }
    }

    /// Makes a fresh, empty storage for one check.
    public typealias Make = @Sendable () async throws -> any SharedOfflineStorage

    /// Every check, by name, in the order ``check(_:)`` runs them.
    public static let checks: [(name: String, run: @Sendable (any SharedOfflineStorage) async throws -> Void)] = [
        ("ids in order", idsInOrder),
        ("per-key head only", headOnly),
        ("a live lease blocks its key", liveLeaseBlocks),
        ("an expired lease is claimable by another owner", expiredLeaseClaimable),
        ("a write with an owner releases the lease", writeReleases),
        ("backoff blocks only its key", backoffBlocksOnlyItsKey),
        ("dead, conflict and expired items do not block their key", settledDoNotBlock),
        ("identity rule", identityRule),
        ("a fenced write of a lost lease is ignored", fencedWriteIgnored),
        ("an owner-nil write applies", ownerlessWriteApplies),
        ("a delivered item is deleted whoever holds it", deleteWhoeverHolds),
        ("renew returns the lost ids", renewReturnsLost),
        ("waiting count", waitingCount),
        ("claim limit", claimLimit),
    ]

    /// Runs every check in ``checks``, each against a storage `make` returns; throws the first
    /// ``Violation`` (or the storage's own error).
    public static func check(_ make: Make) async throws {
        for (_, run) in checks {
            try await run(try await make())
        }
    }

    // MARK: Checks

    /// The time the checks start at (`now` of their first calls).
    public static let start = Date(timeIntervalSince1970: 1_800_000_000)
    /// The lease the checks claim with.
    public static let lease = Duration.seconds(30)

    static func idsInOrder(_ storage: any SharedOfflineStorage) async throws {
        let name = "ids in order"
        let first = try await storage.insert([item("a", key: "k1"), item("b", key: "k2"), item("c", key: "k1")])
        try expect(first.count == 3 && first == first.sorted() && Set(first).count == 3, name, "ids \(first) not increasing")
        let second = try await storage.insert([item("d", key: "k1")])
        try expect(second.count == 1 && second[0] > first[2], name, "a later insert got \(second) after \(first)")
        let items = try await storage.items()
        try expect(items.map(\.id) == first + second, name, "items() lists \(items.map(\.id)), inserted \(first + second)")
        try expect(items.map(\.idempotencyKey) == ["a", "b", "c", "d"], name, "keys \(items.map(\.idempotencyKey))")
        try expect(items.map(\.orderingKey) == ["k1", "k2", "k1", "k1"], name, "ordering keys \(items.map(\.orderingKey))")
        let stored = items[0]
        try expect(
            stored.request.url.absoluteString == "http://127.0.0.1/items/a" && stored.request.method == .post
                && stored.request.body == Data("a".utf8) && stored.request.headers["X-Item"] == "a" && stored.state == .queued
                && stored.expiresAt == start.addingTimeInterval(3600) && stored.createdAt == start,
            name, "the item did not come back as inserted: \(stored)")
    }

    static func headOnly(_ storage: any SharedOfflineStorage) async throws {
        let ids = try await storage.insert([item("a1", key: "a"), item("a2", key: "a"), item("b1", key: "b"), item("b2", key: "b")])
        let claimed = try await storage.claim(owner: "o1", limit: 10, identity: nil, now: start, lease: lease)
        try expect(claimed.map(\.id) == [ids[0], ids[2]], "per-key head only", "claimed \(claimed.map(\.id)) of \(ids)")
        let again = try await storage.claim(owner: "o1", limit: 10, identity: nil, now: start, lease: lease)
        try expect(again.isEmpty, "per-key head only", "a second claim while the heads are leased got \(again.map(\.id))")
    }

    static func liveLeaseBlocks(_ storage: any SharedOfflineStorage) async throws {
        let name = "a live lease blocks its key"
        _ = try await storage.insert([item("a1", key: "a"), item("a2", key: "a")])
        _ = try await storage.claim(owner: "o1", limit: 10, identity: nil, now: start, lease: lease)
        let other = try await storage.claim(owner: "o2", limit: 10, identity: nil, now: start.addingTimeInterval(29), lease: lease)
        try expect(other.isEmpty, name, "another owner claimed \(other.map(\.id)) before the lease expired")
    }

    static func expiredLeaseClaimable(_ storage: any SharedOfflineStorage) async throws {
        let name = "an expired lease is claimable by another owner"
        let ids = try await storage.insert([item("a1", key: "a"), item("a2", key: "a")])
        _ = try await storage.claim(owner: "o1", limit: 10, identity: nil, now: start, lease: lease)
        let taken = try await storage.claim(owner: "o2", limit: 10, identity: nil, now: start.addingTimeInterval(31), lease: lease)
        try expect(taken.map(\.id) == [ids[0]], name, "after the lease expired, another owner claimed \(taken.map(\.id))")
        try expect(taken.first?.idempotencyKey == "a1", name, "the item came back with key \(String(describing: taken.first?.idempotencyKey))")
    }

    static func writeReleases(_ storage: any SharedOfflineStorage) async throws {
        let name = "a write with an owner releases the lease"
        let ids = try await storage.insert([item("a1", key: "a")])
        var claimed = try await storage.claim(owner: "o1", limit: 10, identity: nil, now: start, lease: lease)
        try expect(claimed.count == 1, name, "claimed \(claimed.map(\.id))")
        try await storage.write(owner: "o1", updating: claimed, deleting: [])
        claimed = try await storage.claim(owner: "o2", limit: 10, identity: nil, now: start, lease: lease)
        try expect(claimed.map(\.id) == ids, name, "after the owner wrote the item back, another claimed \(claimed.map(\.id))")
    }

    static func backoffBlocksOnlyItsKey(_ storage: any SharedOfflineStorage) async throws {
        let name = "backoff blocks only its key"
        let ids = try await storage.insert([
            item("a1", key: "a", state: .retrying, nextAttemptAt: start.addingTimeInterval(20)), item("a2", key: "a"), item("b1", key: "b"),
        ])
        let now = try await storage.claim(owner: "o1", limit: 10, identity: nil, now: start, lease: lease)
        try expect(now.map(\.id) == [ids[2]], name, "during a1's backoff claimed \(now.map(\.id)) (expected b1 only)")
        let later = try await storage.claim(owner: "o1", limit: 10, identity: nil, now: start.addingTimeInterval(20), lease: lease)
        try expect(later.map(\.id) == [ids[0]], name, "once the backoff is over claimed \(later.map(\.id)) (expected a1)")
    }

    static func settledDoNotBlock(_ storage: any SharedOfflineStorage) async throws {
        let ids = try await storage.insert([
            item("a1", key: "a", state: .dead), item("a2", key: "a"), item("b1", key: "b", state: .conflict), item("b2", key: "b"),
            item("c1", key: "c", state: .expired), item("c2", key: "c"),
        ])
        let claimed = try await storage.claim(owner: "o1", limit: 10, identity: nil, now: start, lease: lease)
        try expect(
            claimed.map(\.id) == [ids[1], ids[3], ids[5]], "dead, conflict and expired items do not block their key",
            "claimed \(claimed.map(\.id)) of \(ids)")
    }

    static func identityRule(_ storage: any SharedOfflineStorage) async throws {
        let name = "identity rule"
        let ids = try await storage.insert([
            item("a1", key: "a", identity: "alice"), item("a2", key: "a"), item("b1", key: "b", identity: "bob"),
            item("c1", key: "c", identity: "alice"),
        ])
        let asBob = try await storage.claim(owner: "o1", limit: 10, identity: "bob", now: start, lease: lease)
        try expect(asBob.map(\.id) == [ids[1], ids[2]], name, "as bob claimed \(asBob.map(\.id)) (expected a2 and b1)")
        try await storage.write(owner: "o1", updating: [], deleting: asBob.map(\.id))
        let asAlice = try await storage.claim(owner: "o2", limit: 10, identity: "alice", now: start, lease: lease)
        try expect(asAlice.map(\.id) == [ids[0], ids[3]], name, "as alice claimed \(asAlice.map(\.id)) (expected a1 and c1)")
        let more = try await storage.insert([item("d1", key: "d", identity: "alice"), item("d2", key: "d")])
        let signedOut = try await storage.claim(owner: "o3", limit: 10, identity: nil, now: start, lease: lease)
        try expect(signedOut.map(\.id) == [more[1]], name, "signed out claimed \(signedOut.map(\.id)) (expected d2 only)")
    }

    static func fencedWriteIgnored(_ storage: any SharedOfflineStorage) async throws {
        let name = "a fenced write of a lost lease is ignored"
        let ids = try await storage.insert([item("a1", key: "a")])
        let mine = try await storage.claim(owner: "o1", limit: 10, identity: nil, now: start, lease: lease)
        _ = try await storage.claim(owner: "o2", limit: 10, identity: nil, now: start.addingTimeInterval(31), lease: lease)
        let stale = changed(mine[0], state: .dead)
        try await storage.write(owner: "o1", updating: [stale], deleting: [])
        let items = try await storage.items()
        try expect(items.map(\.state) == [.queued], name, "the lost owner's write changed the item to \(items.map(\.state))")
        let third = try await storage.claim(owner: "o3", limit: 10, identity: nil, now: start.addingTimeInterval(32), lease: lease)
        try expect(third.isEmpty, name, "the lost owner's write released the new owner's lease (o3 claimed \(third.map(\.id)))")
        let lost = try await storage.renew(owner: "o1", ids: ids, now: start.addingTimeInterval(32), lease: lease)
        try expect(lost == ids, name, "renew by the lost owner returned \(lost)")
    }

    static func ownerlessWriteApplies(_ storage: any SharedOfflineStorage) async throws {
        let name = "an owner-nil write applies"
        let ids = try await storage.insert([item("a1", key: "a"), item("a2", key: "a")])
        let claimed = try await storage.claim(owner: "o1", limit: 10, identity: nil, now: start, lease: lease)
        try await storage.write(owner: nil, updating: [changed(claimed[0], state: .dead)], deleting: [])
        let items = try await storage.items()
        try expect(items.map(\.state) == [.dead, .queued], name, "states after the write: \(items.map(\.state))")
        let next = try await storage.claim(owner: "o2", limit: 10, identity: nil, now: start, lease: lease)
        try expect(next.map(\.id) == [ids[1]], name, "after a1 went dead, claimed \(next.map(\.id)) (expected a2)")
    }

    static func deleteWhoeverHolds(_ storage: any SharedOfflineStorage) async throws {
        let name = "a delivered item is deleted whoever holds it"
        let ids = try await storage.insert([item("a1", key: "a"), item("a2", key: "a")])
        _ = try await storage.claim(owner: "o1", limit: 10, identity: nil, now: start, lease: lease)
        _ = try await storage.claim(owner: "o2", limit: 10, identity: nil, now: start.addingTimeInterval(31), lease: lease)
        try await storage.write(owner: "o1", updating: [], deleting: [ids[0]])
        let items = try await storage.items()
        try expect(items.map(\.id) == [ids[1]], name, "after o1 deleted a1 (leased by o2), items are \(items.map(\.id))")
        let next = try await storage.claim(owner: "o3", limit: 10, identity: nil, now: start.addingTimeInterval(32), lease: lease)
        try expect(next.map(\.id) == [ids[1]], name, "the key's next item was not claimable: \(next.map(\.id))")
    }

    static func renewReturnsLost(_ storage: any SharedOfflineStorage) async throws {
        let name = "renew returns the lost ids"
        let ids = try await storage.insert([item("a1", key: "a"), item("b1", key: "b")])
        _ = try await storage.claim(owner: "o1", limit: 10, identity: nil, now: start, lease: lease)
        var lost = try await storage.renew(owner: "o1", ids: [ids[1]], now: start.addingTimeInterval(20), lease: lease)
        try expect(lost.isEmpty, name, "a held lease was reported lost: \(lost)")
        let taken = try await storage.claim(owner: "o2", limit: 10, identity: nil, now: start.addingTimeInterval(31), lease: lease)
        try expect(taken.map(\.id) == [ids[0]], name, "after renewing b1 only, another owner claimed \(taken.map(\.id)) (expected a1)")
        let gone = ids[1] + 1000
        lost = try await storage.renew(owner: "o1", ids: ids + [gone], now: start.addingTimeInterval(32), lease: lease)
        try expect(Set(lost) == [ids[0], gone], name, "renew returned \(lost) (expected a1 and the missing id)")
        let blocked = try await storage.claim(owner: "o3", limit: 10, identity: nil, now: start.addingTimeInterval(51), lease: lease)
        try expect(blocked.isEmpty, name, "the renewed lease did not hold: claimed \(blocked.map(\.id))")
    }

    static func waitingCount(_ storage: any SharedOfflineStorage) async throws {
        let name = "waiting count"
        var count = try await storage.waitingCount()
        try expect(count == 0, name, "an empty storage counts \(count)")
        _ = try await storage.insert([
            item("a1", key: "a"), item("a2", key: "a", state: .retrying, nextAttemptAt: start), item("b1", key: "b", state: .dead),
            item("c1", key: "c", state: .conflict), item("d1", key: "d", state: .expired), item("e1", key: "e"),
        ])
        _ = try await storage.claim(owner: "o1", limit: 1, identity: nil, now: start, lease: lease)
        count = try await storage.waitingCount()
        try expect(count == 3, name, "counts \(count) (expected 3: queued and retrying, leased or not)")
    }

    static func claimLimit(_ storage: any SharedOfflineStorage) async throws {
        let ids = try await storage.insert([item("a1", key: "a"), item("b1", key: "b"), item("c1", key: "c")])
        let claimed = try await storage.claim(owner: "o1", limit: 2, identity: nil, now: start, lease: lease)
        try expect(claimed.map(\.id) == [ids[0], ids[1]], "claim limit", "with limit 2 claimed \(claimed.map(\.id))")
    }

    /// Checks that an insert through one client's storage (`inserting`) wakes another client's
    /// (`listening`, on the same data): subscribes, inserts once a second, and waits (at most
    /// ten seconds) for three wake-ups: a storage may yield once when its listener connects, so
    /// at least two come from inserts. Throws a ``Violation`` when they do not come.
    public static func checkWakeUps(inserting storage: any SharedOfflineStorage, listening: any SharedOfflineStorage) async throws {
        let wakeUps = listening.wakeUps()
        let woke = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                var count = 0
                for await _ in wakeUps {
                    count += 1
                    if count == 3 { return true }
                }
                return false
            }
            group.addTask {
                for attempt in 0..<10 {
                    _ = try? await storage.insert([item("w\(attempt)", key: "w")])
                    do { try await Task.sleep(for: .seconds(1)) } catch { return false }
                }
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        try expect(woke, "an insert wakes another client", "fewer than three wake-ups came in 10 s of inserts, one a second")
    }

    // MARK: Items

    /// An item to insert, as the checks make them: `name` is its idempotency key, path
    /// (`/items/<name>`), `X-Item` header and body; `key` its ordering key; `identity` its session
    /// identity. Created and expiring an hour after ``start``.
    public static func item(
        _ name: String, key: String, state: OfflineItemState = .queued, nextAttemptAt: Date? = nil, identity: String? = nil
    ) -> OfflineItem {
        OfflineItem(
            id: 0,
            request: HTTPRequest(
                method: .post, url: URL(string: "http://127.0.0.1/items/\(name)")!, headers: ["X-Item": name], body: Data(name.utf8)),
            requiresAuth: identity != nil, sessionIdentity: identity, attemptTimeout: nil, deadline: nil, idempotencyKey: name,
            createdAt: start, expiresAt: start.addingTimeInterval(3600), attempts: 0, lastError: nil, state: state,
            nextAttemptAt: nextAttemptAt, serverResponse: nil, orderingKey: key)
    }

    static func changed(_ item: OfflineItem, state: OfflineItemState) -> OfflineItem {
        OfflineItem(
            id: item.id, request: item.request, requiresAuth: item.requiresAuth, sessionIdentity: item.sessionIdentity,
            attemptTimeout: item.attemptTimeout, deadline: item.deadline, idempotencyKey: item.idempotencyKey, createdAt: item.createdAt,
            expiresAt: item.expiresAt, attempts: item.attempts + 1, lastError: "changed", state: state, nextAttemptAt: nil,
            serverResponse: nil, orderingKey: item.orderingKey)
    }

    private static func expect(_ condition: Bool, _ check: String, _ detail: @autoclosure () -> String) throws {
        if !condition { throw Violation(check: check, detail: detail()) }
    }
}
