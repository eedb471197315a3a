import Courier
import Foundation

/// The SQLite queue's rows of the same run: one client enqueueing offline with 64 enqueuers,
/// then draining to the same receiver.
enum SQLiteRuns {
    struct Result {
        let enqueueRate: Double
        let drainRate: Double
        let lost: Int
    }

    static func measure(writes: Int, drainItems: Int, receiver: URL) async -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-pg-bench-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let enqueue = await run(directory: directory.appendingPathComponent("enqueue.sqlite"), writes: writes, receiver: receiver, drain: false)
        let drain = await run(directory: directory.appendingPathComponent("drain.sqlite"), writes: drainItems, receiver: receiver, drain: true)
        return Result(enqueueRate: enqueue.enqueueRate, drainRate: drain.drainRate, lost: drain.lost)
    }

    private static func run(directory file: URL, writes: Int, receiver: URL, drain: Bool) async -> Result {
        var configuration = APIClient.Configuration(baseURL: receiver, retryPolicy: .never)
        configuration.connectivity = .init(debounce: .zero, watchesLink: false)
        configuration.offline = .init(storageFile: file, maxItems: 1_000_000, drainInterval: .seconds(3600))
        let client = APIClient(configuration: configuration)
        try? client.connectivity.report(.offline)
        while let state = try? client.connectivity.state, state != .offline { await Task.yield() }
        let write = Endpoint<EmptyResponse>(path: "writes", method: .post, body: ["title": "a note written offline"])
        let enqueuers = 64
        var start = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<enqueuers {
                group.addTask { for _ in 0..<(writes / enqueuers) { _ = try? await client.offline.send(write) } }
            }
        }
        let enqueueRate = Double(writes / enqueuers * enqueuers) / (ContinuousClock.now - start).seconds
        var drainRate = 0.0
        var lost = 0
        if drain {
            let waiting = (try? await client.offline.pendingCount) ?? 0
            start = ContinuousClock.now
            try? client.connectivity.report(.online)
            while ((try? await client.offline.pendingCount) ?? 0) > 0 {
                guard (try? await client.offline.sync()) != nil else { break }
            }
            let left = (try? await client.offline.pendingCount) ?? 0
            drainRate = Double(waiting - left) / (ContinuousClock.now - start).seconds
            lost = left
        }
        await client.shutdown()
        return Result(enqueueRate: enqueueRate, drainRate: drainRate, lost: lost)
    }
}
