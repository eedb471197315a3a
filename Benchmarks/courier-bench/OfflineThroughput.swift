import Courier
import CourierTesting
import Foundation

/// The offline queue's throughput against the in-memory transport: durable enqueues per second
/// (each `send` returns `queued` only once its write is committed to SQLite with
/// `synchronous=FULL`; writes that arrive together share a commit), with 64 concurrent
/// enqueuers and with one awaiting each, then how fast a drain replays them all.
enum OfflineThroughput {
    struct Result {
        let concurrentPerSecond: Double
        let sequentialPerSecond: Double
        let drainPerSecond: Double
        let failures: Int
    }

    static func measure(concurrentWrites: Int, sequentialWrites: Int) async -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = APIClient.Configuration(
            baseURL: URL(string: "https://api.example.com")!,
            transport: InMemoryTransport(always: HTTPResponse(status: 201)), retryPolicy: .never)
        configuration.connectivity = .init(debounce: .zero, watchesLink: false)
        configuration.offline = .init(
            storageFile: directory.appendingPathComponent("offline.sqlite"), maxItems: 1_000_000, drainInterval: .seconds(3600))
        let client = APIClient(configuration: configuration)
        // The client has both components, so these calls cannot fail for want of one.
        try? client.connectivity.report(.offline)
        while let state = try? client.connectivity.state, state != .offline { await Task.yield() }
        let pendingCount = { (try? await client.offline.pendingCount) ?? 0 }

        let write = Endpoint<EmptyResponse>(
            path: "notes", method: .post, body: ["title": "a note written offline"])
        let enqueuers = 64
        var start = ContinuousClock.now
        let failures = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<enqueuers {
                group.addTask {
                    var failed = 0
                    for _ in 0..<(concurrentWrites / enqueuers) where !(await queued(client, write)) { failed += 1 }
                    return failed
                }
            }
            return await group.reduce(0, +)
        }
        let concurrent = Double(concurrentWrites / enqueuers * enqueuers) / (ContinuousClock.now - start).inSeconds

        start = ContinuousClock.now
        var sequentialFailures = 0
        for _ in 0..<sequentialWrites where !(await queued(client, write)) { sequentialFailures += 1 }
        let sequential = Double(sequentialWrites) / (ContinuousClock.now - start).inSeconds

        let waiting = await pendingCount()
        start = ContinuousClock.now
        try? client.connectivity.report(.online)
        _ = try? await client.offline.sync()
        while await pendingCount() > 0 {
            guard (try? await client.offline.sync()) != nil else { break }
        }
        let left = await pendingCount()
        let drain = Double(waiting - left) / (ContinuousClock.now - start).inSeconds
        await client.shutdown()
        return Result(
            concurrentPerSecond: concurrent, sequentialPerSecond: sequential, drainPerSecond: drain,
            failures: failures + sequentialFailures + left)
    }

    /// Sends one write while offline: whether it came back `queued`.
    private static func queued(_ client: APIClient, _ write: Endpoint<EmptyResponse>) async -> Bool {
        (try? await client.offline.send(write))?.queuedItemID != nil
    }
}
