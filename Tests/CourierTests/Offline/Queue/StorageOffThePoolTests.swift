#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CourierTesting
import Foundation
import Testing

@testable import Courier

/// Issue 28, item 1: storage never blocks the cooperative pool (one thread per core). The offline
/// queue's file held by another process, and every message of the queue and of the cache taking
/// 20 ms of "disk" on its storage thread, leave 1,000 concurrent GETs through the same client
/// about as fast as without: the ratio of the two, in one run, never a time.
@Suite(.serialized) struct StorageOffThePoolTests {
    /// A client with a durable queue at `queueFile` and a cache with a persistent tier at
    /// `cacheFile`, whose storage is slow while `slow` holds `true`.
    private func storingClient(queueFile: URL, cacheFile: URL, slow: Locked<Bool>) -> APIClient {
        let body = Data(#"{"id":1,"name":"Ada"}"#.utf8)
        let transport = InMemoryTransport(always: HTTPResponse(
            status: 200, headers: ["Content-Type": "application/json", "Cache-Control": "max-age=3600"], body: body))
        // A slow disk: each storage step takes 20 ms more, on the component's own thread (a
        // sleep in each step of the cache's persistent tier and of the queue's storage).
        let slowDisk: @Sendable () -> Void = { if slow.withLock({ $0 }) { usleep(20_000) } }
        return client(URL(string: "https://api.example.com")!, transport: transport) {
            $0.connectivity = .init(debounce: .zero, watchesLink: false)
            $0.caching = .init(storageFile: cacheFile)
            $0.caching?.storage = FaultyCacheStorage { _ in slowDisk(); return nil }
            var offline = APIClient.Configuration.Offline(storageFile: queueFile)
            offline.storage = FaultyOfflineStorage { _ in slowDisk(); return nil }
            $0.offline = offline
        }
    }

    /// 1,000 concurrent GETs, half fresh hits from the cache, half past it (their own
    /// `Authorization`: not cached) to the network: how long they all took.
    private func concurrentGETs(_ api: APIClient) async throws -> Duration {
        let hit = Endpoint<User>(path: "users/1")
        let uncached = Endpoint<User>(path: "users/2", headers: ["Authorization": "Bearer the caller's own"])
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: User.self) { group in
            for n in 0..<1000 { group.addTask { try await api.send(n.isMultiple(of: 2) ? hit : uncached).value } }
            for try await user in group { #expect(user.id == 1) }
        }
        return ContinuousClock.now - start
    }

    /// Keeps the queue and the cache busy with messages that touch their storage (enqueues; the
    /// invalidation of a URL no GET uses, then stats, answered once it was handled) until `stop` is set.
    private func keepStorageBusy(_ api: APIClient, until stop: Locked<Bool>) -> Task<Void, Never> {
        Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        while !stop.withLock({ $0 }) {
                            _ = try? await api.offline.enqueue(Endpoint<EmptyResponse>(path: "notes", method: .post, body: ["n": 1]))
                        }
                    }
                    group.addTask {
                        while !stop.withLock({ $0 }) {
                            try? api.cache.invalidate(under: "elsewhere")
                            _ = try? await api.cache.stats()
                        }
                    }
                }
            }
        }
    }

    @Test("a locked queue file and a slow disk hold no pool thread: 1,000 concurrent GETs take about as long as without")
    func lockedFileAndSlowDisk() async throws {
        let directory = try temporaryDirectory()
        let queueFile = directory.appendingPathComponent("queue.sqlite")
        // Another process holds the queue's file before the client opens it.
        let locker = try await PythonServerProcess.start(script: "sqlite_locker.py", arguments: [queueFile.path])
        defer { locker.stop() }
        let slow = Locked(false)
        let api = storingClient(queueFile: queueFile, cacheFile: directory.appendingPathComponent("cache.sqlite"), slow: slow)
        _ = try await api.send(Endpoint<User>(path: "users/1"))   // the hits' entry

        // Rounds with the storage busy (the queue's callers waiting out the lock, every message of
        // the queue and the cache slow) and without (nothing sent to either), interleaved, the
        // best of five each, so that the machine's other load falls on both. Both in one process:
        // a pool thread blocked by either component would slow every client's requests.
        var without = Duration.seconds(3600), with = Duration.seconds(3600)
        for _ in 0..<5 {
            slow.withLock { $0 = true }
            let stop = Locked(false)
            let busy = keepStorageBusy(api, until: stop)
            try await Task.sleep(for: .milliseconds(50))   // the busy loops under way
            with = min(with, try await concurrentGETs(api))
            stop.withLock { $0 = true }
            await busy.value
            slow.withLock { $0 = false }
            without = min(without, try await concurrentGETs(api))
        }
        let ratio = with / without
        print("1,000 concurrent GETs: \(without) without, \(with) with a locked queue file and a slow disk: ratio \(ratio)")
        #expect(ratio < 3)

        // The locked file: an enqueue fails, after waiting at most the busy timeout, and says why.
        await #expect {
            _ = try await api.offline.enqueue(Endpoint<EmptyResponse>(path: "notes", method: .post, body: ["n": 2]))
        } throws: { error in
            guard case NetworkError.storageFailed(let reason) = error else { return false }
            return reason.contains("database is locked") && reason.contains("another connection or process holds the file")
        }

        // Once the other process lets go, the queue opens (a failed open is tried again a second
        // later) and stores writes.
        locker.stopAndWait()
        var stored: Int64?
        for _ in 0..<300 where stored == nil {
            stored = try? await api.offline.enqueue(Endpoint<EmptyResponse>(path: "notes", method: .post, body: ["n": 3]))
            if stored == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(stored != nil)
        await api.shutdown()
    }
}
