import CourierTesting
import Foundation
import Testing

@testable import Courier

/// The name of the ThreadExecutor whose thread is calling; "" on any other thread (the pool's).
func currentThreadName() -> String {
    ThreadExecutor.currentName ?? ""
}

/// An actor on a thread of its own, as the components that own a database are.
private actor OnThread {
    let executor = ThreadExecutor(name: "courier.test")
    private var seen: [Int] = []

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Where the call ran: on the executor's thread, and its name.
    func whereAmI() -> (onExecutor: Bool, name: String) {
        (executor.isCurrent, currentThreadName())
    }

    func append(_ value: Int) {
        seen.append(value)
    }

    var values: [Int] { seen }
}

extension Cache {
    /// The name of the thread this instance's isolated code runs on.
    func threadName() -> String { currentThreadName() }
}

@Suite struct ThreadExecutorTests {
    @Test("an actor on a ThreadExecutor runs on the executor's thread, never on the caller's (a pool thread)")
    func runsOnItsThread() async {
        let actor = OnThread()
        let (onExecutor, name) = await actor.whereAmI()
        #expect(onExecutor)
        #expect(name == "courier.test")
        #expect(!actor.executor.isCurrent)   // here: the test's task, on the pool
        #expect(currentThreadName() != "courier.test")
    }

    @Test("jobs run one at a time, in the order they were enqueued")
    func serial() async {
        let actor = OnThread()
        for value in 0..<1000 { await actor.append(value) }
        await withTaskGroup(of: Void.self) { group in
            for value in 1000..<2000 { group.addTask { await actor.append(value) } }
        }
        let values = await actor.values
        #expect(Array(values.prefix(1000)) == Array(0..<1000))
        #expect(values.sorted() == Array(0..<2000))
    }

    @Test("the thread ends once its executor is released")
    func threadEnds() async {
        var actor: OnThread? = OnThread()
        let ended = actor!.executor.ended
        _ = await actor!.whereAmI()
        #expect(!ended.isOpen)
        actor = nil
        #expect(await ended.wait(atMost: .seconds(60), clock: SystemTimeSource()))
    }

    @Test("the offline queue's messages are handled on its own thread, and the thread ends with the instance")
    func offlineQueueOffThePool() async throws {
        let names = Locked<[String]>([])
        let mailbox = Mailbox<OfflineQueue.Message>(name: "OfflineQueue")
        let handle = OfflineQueue.Handle(mailbox: mailbox, waiting: LatestValue(0))
        var environment = OfflineQueue.Environment(
            path: ":memory:", limits: OfflineLimits(maxAttempts: 3, expiry: .seconds(3600), backoff: .constant(.seconds(1)), maxItems: 100),
            clock: ManualClock(), events: EventBroadcaster(), waiting: handle.waiting, loaded: handle.loaded)
        // Each storage step records its thread: the open (with its recovery) and the enqueue's insert.
        environment.storage = FaultyOfflineStorage { _ in
            let name = currentThreadName()
            names.withLock { $0.append(name) }
            return nil
        }
        // The instance's thread, made here so that the test can see it end.
        let thread = Locked<Latch?>(nil)
        environment.makeExecutor = {
            let executor = ThreadExecutor(name: "courier.queue")
            thread.withLock { $0 = executor.ended }
            return executor
        }
        var queue: OfflineQueue? = OfflineQueue(environment)
        let ended = try #require(thread.withLock { $0 })
        let task = Task { [queue] in try await queue!.run(mailbox, incarnation: 1) }
        queue = nil
        _ = try await handle.enqueue(write(1), requiresAuth: true)
        _ = try await handle.items()
        let steps = names.withLock { $0 }
        #expect(steps.count >= 2 && Set(steps) == ["courier.queue"])
        mailbox.close()
        _ = await task.result
        #expect(await ended.wait(atMost: .seconds(60), clock: SystemTimeSource()))
    }

    @Test("the cache runs on its own thread when it has a persistent tier, on the pool without one")
    func cacheOffThePool() async throws {
        // With a tier, through a client: each storage step records its thread (the open, and
        // the removal of earlier sessions' entries).
        let names = Locked<[String]>([])
        let api = client(URL(string: "https://api.example.com")!, transport: InMemoryTransport(always: HTTPResponse(status: 404))) {
            $0.caching = .init(storageFile: try? temporaryDirectory().appendingPathComponent("cache.sqlite"))
            $0.caching?.storage = FaultyCacheStorage { _ in
                let name = currentThreadName()
                names.withLock { $0.append(name) }
                return nil
            }
        }
        _ = try await api.cache.stats()
        let seen = names.withLock { $0 }
        #expect(!seen.isEmpty && Set(seen) == ["courier.cache"])
        await api.shutdown()
        // Both ways, on the instance itself: its isolated code runs where its messages do.
        for persistence in [(path: try temporaryDirectory().appendingPathComponent("cache.sqlite").path, maxBytes: 1 << 20), nil] {
            var environment = Cache.Environment(
                mailbox: Mailbox(name: "Cache"),
                maxEntries: 10, maxBytes: 1 << 20, defaultTTL: 300, clock: ManualClock(),
                shelf: Locked(CacheShelf(storage: CacheStorage(maxEntries: 10, maxBytes: 1 << 20))))
            environment.persistence = persistence
            let name = await Cache(environment).threadName()
            if persistence != nil { #expect(name == "courier.cache") } else { #expect(name != "courier.cache") }
        }
    }

    @Test("the token store saves and removes the tokens on its own thread, never on the pool")
    func tokenStoreOffThePool() async throws {
        /// Remembers the thread each call came on.
        final class Recording: TokenPersistence {
            let names = Locked<[String]>([])
            func load() throws -> Tokens? { record(); return nil }
            func save(_ tokens: Tokens) throws { record() }
            func remove() throws { record() }
            private func record() {
                let name = currentThreadName()
                names.withLock { $0.append(name) }
            }
        }
        let persistence = Recording()
        let api = client(URL(string: "https://api.example.com")!) { $0.session = .init(persistence: persistence) }
        try await api.session.signIn(Tokens(accessToken: "t"))
        try await api.session.signOut()
        #expect(persistence.names.withLock { $0 } == ["courier.tokens", "courier.tokens", "courier.tokens"])
        await api.shutdown()
    }
}
