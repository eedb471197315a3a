import CourierTesting
import Foundation
import Testing

@testable import Courier

/// A transport that records, per ordering key (the last path segment of `/keys/<key>`), how
/// many replays are in flight at once across every client using it.
private final class KeyWatch: HTTPTransport, Sendable {
    private struct State {
        var inFlight: [String: Int] = [:]
        var overlaps: [String] = []
    }

    private let inner = APIClient.Configuration.defaultTransport
    private let state = Locked(State())

    /// Keys that were ever sent by two replays at once.
    var overlaps: [String] { state.withLock { $0.overlaps } }

    func send(_ request: HTTPRequest) async throws(NetworkError) -> HTTPResponse {
        let key = request.url.lastPathComponent
        state.withLock { state in
            state.inFlight[key, default: 0] += 1
            if state.inFlight[key]! > 1 { state.overlaps.append(key) }
        }
        defer { state.withLock { $0.inFlight[key, default: 1] -= 1 } }
        return try await inner.send(request)
    }
}

/// A storage that forwards to `shared` until cut, then fails every call: a replica that lost
/// its database connection for good (or died: it writes nothing more).
private final class Severable: SharedOfflineStorage, Sendable {
    struct Cut: Error {}
    let shared: any SharedOfflineStorage
    private let cut = Locked(false)

    init(_ shared: any SharedOfflineStorage) { self.shared = shared }

    func sever() { cut.withLock { $0 = true } }

    private func check() throws { if cut.withLock({ $0 }) { throw Cut() } }

    func insert(_ items: [OfflineItem]) async throws -> [Int64] {
        try check()
        return try await shared.insert(items)
    }

    func claim(owner: String, limit: Int, identity: String?, now: Date, lease: Duration) async throws -> [OfflineItem] {
        try check()
        return try await shared.claim(owner: owner, limit: limit, identity: identity, now: now, lease: lease)
    }

    func renew(owner: String, ids: [Int64], now: Date, lease: Duration) async throws -> [Int64] {
        try check()
        return try await shared.renew(owner: owner, ids: ids, now: now, lease: lease)
    }

    func write(owner: String?, updating: [OfflineItem], deleting: [Int64]) async throws {
        try check()
        try await shared.write(owner: owner, updating: updating, deleting: deleting)
    }

    func items() async throws -> [OfflineItem] {
        try check()
        return try await shared.items()
    }

    func waitingCount() async throws -> Int {
        try check()
        return try await shared.waitingCount()
    }

    func wakeUps() -> AsyncStream<Void> { shared.wakeUps() }
}

/// A client of `baseURL` whose offline queue is shared through `storage`.
private func sharedClient(
    _ baseURL: URL, _ storage: any SharedOfflineStorage, clock: ManualClock = ManualClock(), transport: (any HTTPTransport)? = nil
) -> APIClient {
    client(baseURL, transport: transport ?? APIClient.Configuration.defaultTransport, retryPolicy: .never, clock: clock) {
        $0.connectivity = .init(debounce: .zero, watchesLink: false)
        var offline = APIClient.Configuration.Offline(retryBackoff: .constant(.seconds(10)))
        offline.sharedStorage = storage
        $0.offline = offline
    }
}

/// Write `n` of ordering key `key`, to `/keys/<key>`.
private func keyedWrite(_ n: Int, key: String) -> Endpoint<EmptyResponse> {
    Endpoint(path: "keys/\(key)", method: .post, body: ["n": n], options: RequestOptions(orderingKey: key))
}

@Suite(.timeLimit(.minutes(5))) struct SharedOfflineQueueTests {
    @Test("two clients sharing one storage drain 200 writes of 4 keys: each once, in order per key, never one key twice at once")
    func twoClientsDrainTogether() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        let keys = (0..<4).map { "k\($0)" }
        for key in keys { try await server.script("/keys/\(key)", method: "POST", [ScriptedResponse.json(201, "{}").with(delay: 0.002)]) }
        let storage = InMemorySharedOfflineStorage()
        let watch = KeyWatch()
        let replicas = [sharedClient(server.baseURL, storage, transport: watch), sharedClient(server.baseURL, storage, transport: watch)]
        for api in replicas {
            try api.connectivity.report(.offline)
            _ = try await settledConnectivity(api)
        }
        for n in 0..<200 { _ = try await replicas[n % 2].offline.enqueue(keyedWrite(n, key: keys[n % 4])) }
        #expect(try await storage.waitingCount() == 200)

        // Both drain at once, each as often as it is asked, until every write went out.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for api in replicas {
                group.addTask {
                    while try await storage.waitingCount() > 0 { _ = try await api.offline.sync() }
                }
            }
            try await group.waitForAll()
        }
        for key in keys {
            let received = try await server.requests(path: "/keys/\(key)")
            let expected = stride(from: keys.firstIndex(of: key)!, to: 200, by: 4).map { #"{"n":\#($0)}"# }
            #expect(received.map(\.bodyText) == expected, "key \(key) out of order or incomplete")
        }
        let records = try await server.idempotencyKeys()
        #expect(records.count == 200)
        #expect(records.values.allSatisfy { $0.processed == 1 && $0.seen == 1 })
        #expect(watch.overlaps.isEmpty, "replayed by two at once: \(watch.overlaps)")
        for api in replicas { _ = try await api.offline.sync() }
        #expect(try await storage.items().isEmpty)
        for api in replicas { await api.shutdown() }
    }

    @Test("a client that stops mid-replay without renewing its lease: once it expires, the other replays the write under the same key")
    func expiredLeaseIsTakenOver() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        try await server.script("/keys/k0", method: "POST", [.hold, .json(201, "{}")])
        let shared = InMemorySharedOfflineStorage()
        let dying = Severable(shared)
        let first = sharedClient(server.baseURL, dying)
        let clock = ManualClock()
        let second = sharedClient(server.baseURL, shared, clock: clock)
        try second.connectivity.report(.offline)
        _ = try await settledConnectivity(second)

        let id = try await first.offline.enqueue(keyedWrite(1, key: "k0"))
        let sent = try await server.waitForRequests(path: "/keys/k0", count: 1)
        // The first client loses its database and stops: its lease is never renewed or released.
        dying.sever()
        await first.shutdown()
        #expect(shared.lease(of: id) != nil)

        // Before the lease expires the item is not the second's to replay.
        _ = try await second.offline.sync()
        #expect(try await server.requests(path: "/keys/k0").count == 1)
        #expect(try await shared.items().map(\.id) == [id])

        clock.advance(by: .seconds(31))
        let progress = try await second.offline.sync()
        #expect(progress.done == 1)
        let received = try await server.requests(path: "/keys/k0")
        #expect(received.count == 2)
        #expect(received.map { $0.header("Idempotency-Key") } == sent.map { $0.header("Idempotency-Key") } + sent.map { $0.header("Idempotency-Key") })
        #expect(try await shared.items().isEmpty)
        await second.shutdown()
    }

    @Test("an item backing off holds back only its own key's later writes")
    func backoffHoldsOnlyItsKey() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        try await server.script("/keys/a", method: "POST", [.status(503)])
        try await server.script("/keys/b", method: "POST", [.json(201, "{}")])
        let storage = InMemorySharedOfflineStorage()
        let api = sharedClient(server.baseURL, storage)
        try api.connectivity.report(.offline)
        _ = try await settledConnectivity(api)
        for (n, key) in [(1, "a"), (2, "a"), (3, "b"), (4, "b")] { _ = try await api.offline.enqueue(keyedWrite(n, key: key)) }

        let progress = try await api.offline.sync()
        #expect(progress.done == 2)
        #expect(try await server.requests(path: "/keys/b").map(\.bodyText) == [#"{"n":3}"#, #"{"n":4}"#])
        #expect(try await server.requests(path: "/keys/a").map(\.bodyText) == [#"{"n":1}"#])
        let items = try await api.offline.items()
        #expect(items.map(\.state) == [.retrying, .queued])
        #expect(items.map(\.orderingKey) == ["a", "a"])
        await api.shutdown()
    }

    @Test("an enqueue is answered once the storage holds it; one the storage refused answers storageFailed and loses nothing")
    func enqueueIsAcknowledgedAfterTheInsert() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        let storage = InMemorySharedOfflineStorage()
        let api = sharedClient(server.baseURL, storage)
        try api.connectivity.report(.offline)
        _ = try await settledConnectivity(api)
        let events = api.offline.events()

        let id = try await api.offline.enqueue(keyedWrite(1, key: "a"))
        #expect(try await storage.items().map(\.id) == [id])
        storage.isDown = true
        let error = await #expect(throws: NetworkError.self) { try await api.offline.enqueue(keyedWrite(2, key: "a")) }
        guard case .storageFailed? = error else {
            Issue.record("expected storageFailed, got \(String(describing: error))")
            return
        }
        let seen = await collect(events) { $0.contains { if case .storageFailed = $0 { true } else { false } } }
        #expect(seen.first == .enqueued(itemID: id))
        storage.isDown = false
        let items = try await storage.items()
        #expect(items.map(\.id) == [id])
        #expect(items.first?.request.body == Data(#"{"n":1}"#.utf8))
        #expect(try await api.offline.enqueue(keyedWrite(3, key: "a")) > id)
        await api.shutdown()
    }

    @Test("a storage that is down ends drains quietly; once it is back, the periodic drain delivers")
    func drainsResumeAfterTheStorageIsBack() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        try await server.script("/keys/a", method: "POST", [.json(201, "{}")])
        let storage = InMemorySharedOfflineStorage()
        let clock = ManualClock()
        let api = sharedClient(server.baseURL, storage, clock: clock)
        try api.connectivity.report(.offline)
        _ = try await settledConnectivity(api)
        for n in 1...3 { _ = try await api.offline.enqueue(keyedWrite(n, key: "a")) }

        storage.isDown = true
        let progress = try await api.offline.sync()
        #expect(progress.done == 0 && progress.isFinished)
        #expect(try await server.requests(path: "/keys/a").isEmpty)
        #expect(try await api.offline.pendingCount == 3)

        storage.isDown = false
        await clock.waitForSleepers(2)   // the sync timer and the lease renewal
        let seen = Locked<[String]>([])
        let requestEvents = api.events()
        let watcher = Task { for await event in requestEvents { seen.withLock { $0.append("\(event)") } } }
        defer { watcher.cancel() }
        clock.advance(by: .seconds(60))
        // Under ThreadSanitizer, with the whole suite beside it, a replay's POST was seen sent
        // (its attempt published) and not received within the default wait: this wait is long,
        // and a failure says how far the replays got.
        do {
            let received = try await server.waitForRequests(path: "/keys/a", count: 3, timeout: 120)
            #expect(received.map(\.bodyText) == (1...3).map { #"{"n":\#($0)}"# })
        } catch {
            Issue.record("\(error); the client's events: \(seen.withLock { $0 })")
        }
        await api.shutdown()
    }

    @Test("a replay's lease is renewed every third of a lease while it runs")
    func leaseRenewedDuringReplay() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        try await server.script("/keys/a", method: "POST", [.afterRelease(status: 201, body: "{}")])
        let storage = InMemorySharedOfflineStorage()
        let clock = ManualClock()
        let api = sharedClient(server.baseURL, storage, clock: clock)
        let id = try await api.offline.enqueue(keyedWrite(1, key: "a"))
        _ = try await server.waitForRequests(path: "/keys/a", count: 1)
        let start = clock.currentDate
        #expect(storage.lease(of: id)?.until == start.addingTimeInterval(30))

        let sleepers = clock.sleeperCount
        clock.advance(by: .seconds(10))
        await clock.waitForSleepers(sleepers)   // the renewal timer sleeps again once it asked
        _ = try await api.offline.items()   // handled after the renewal
        #expect(storage.lease(of: id)?.until == start.addingTimeInterval(40))

        try await server.release(path: "/keys/a")
        _ = try await api.offline.sync()
        #expect(try await storage.items().isEmpty)
        await api.shutdown()
    }

    @Test("dead letters are listed, retried and removed through the shared storage")
    func deadLettersThroughTheStorage() async throws {
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        try await server.script("/keys/a", method: "POST", [.status(400)])
        let storage = InMemorySharedOfflineStorage()
        let api = sharedClient(server.baseURL, storage)
        try api.connectivity.report(.offline)
        _ = try await settledConnectivity(api)
        let id = try await api.offline.enqueue(keyedWrite(1, key: "a"))
        _ = try await api.offline.sync()
        #expect(try await storage.items().map(\.state) == [.dead])
        #expect(try await api.offline.pendingCount == 0)

        try await api.offline.retry(id)
        #expect(try await storage.items().map(\.state) == [.queued])
        #expect(try await api.offline.pendingCount == 1)
        try await api.offline.remove(id)
        #expect(try await storage.items().isEmpty)
        #expect(try await api.offline.pendingCount == 0)
        await #expect(throws: NetworkError.self) { try await api.offline.remove(id) }
        await api.shutdown()
    }
}
