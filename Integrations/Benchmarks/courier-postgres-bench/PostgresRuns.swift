import Courier
import CourierPostgres
import Foundation
import PostgresNIO

/// The PostgreSQL rows: each run in a table of its own, dropped afterwards.
enum PostgresRuns {
    struct Drain {
        let rate: Double
        let lost: Int
        let duplicates: Int
    }

    /// Durable enqueues per second: `enqueuers` tasks each enqueueing one write at a time
    /// through one client's offline queue on the shared table (`client.offline.enqueue`: durable
    /// on return; the writes of one mailbox batch share an insert), each task on its own key.
    static func enqueueRate(url: URL, writes: Int, enqueuers: Int) async throws -> Double {
        try await withStorage(url: url) { storage in
            try await storage.prepare()
            let client = APIClient(configuration: configuration(storage, receiver: URL(string: "http://127.0.0.1:9")!))
            // Offline: the writes stay queued, nothing drains meanwhile.
            try client.connectivity.report(.offline)
            while try client.connectivity.state != .offline { await Task.yield() }
            let start = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for enqueuer in 0..<enqueuers {
                    let write = Endpoint<EmptyResponse>(
                        path: "writes", method: .post, body: ["title": "a note written offline"],
                        options: RequestOptions(orderingKey: "e\(enqueuer)"))
                    group.addTask {
                        for _ in 0..<(writes / enqueuers) { _ = try await client.offline.enqueue(write) }
                    }
                }
                try await group.waitForAll()
            }
            let rate = Double(writes / enqueuers * enqueuers) / (ContinuousClock.now - start).seconds
            await client.shutdown()
            return rate
        }
    }

    /// Items per second drained by `replicas` clients (each its own PostgreSQL client and
    /// `APIClient` whose offline queue is the shared table) from a table of `items` items over
    /// 64 ordering keys, until nothing waits; delivered and duplicate counts from the receiver.
    static func drainRate(url: URL, items count: Int, replicas: Int, receiver: Receiver) async throws -> Drain {
        let table = String("courier_bench_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12))
        let ids = try await withStorage(url: url, table: table, drop: false) { storage in
            try await storage.insert((0..<count).map { item(key: "k\($0 % 64)", sequence: $0 / 64, receiver: receiver.baseURL) })
        }
        let before = try await receiver.stats()
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<replicas {
                group.addTask {
                    try await withStorage(url: url, table: table, drop: false) { storage in
                        let client = APIClient(configuration: configuration(storage, receiver: receiver.baseURL))
                        while true {
                            _ = try await client.offline.sync()
                            if try await client.offline.pendingCount == 0 { break }
                            try await Task.sleep(for: .milliseconds(2))
                        }
                        await client.shutdown()
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = (ContinuousClock.now - start).seconds
        let after = try await receiver.stats()
        let distinct = after.distinct - before.distinct
        try await withStorage(url: url, table: table) { _ in }
        return Drain(rate: Double(distinct) / elapsed, lost: ids.count - distinct, duplicates: after.duplicates - before.duplicates)
    }

    /// A replica's client: its offline queue on `storage`, with no periodic drain of its own
    /// during a run (the runs ask with `sync`).
    static func configuration(_ storage: PostgresOfflineStorage, receiver: URL) -> APIClient.Configuration {
        var offline = APIClient.Configuration.Offline(maxItems: 1_000_000, drainInterval: .seconds(3600))
        offline.sharedStorage = storage
        var configuration = APIClient.Configuration(baseURL: receiver, retryPolicy: .never)
        configuration.connectivity = .init(debounce: .zero, watchesLink: false)
        configuration.offline = offline
        return configuration
    }

    static func item(key: String, sequence: Int, receiver: URL) -> OfflineItem {
        let now = Date()
        return OfflineItem(
            id: 0,
            request: HTTPRequest(
                method: .post, url: receiver.appendingPathComponent("writes"),
                headers: ["Content-Type": "application/json", "X-Ordering-Key": key, "X-Sequence": "\(sequence)"],
                body: Data(#"{"title":"a note written offline"}"#.utf8)
            ),
            requiresAuth: false, sessionIdentity: nil, attemptTimeout: nil, deadline: nil, idempotencyKey: UUID().uuidString,
            createdAt: now, expiresAt: now.addingTimeInterval(3600), attempts: 0, lastError: nil, state: .queued,
            nextAttemptAt: nil, serverResponse: nil, orderingKey: key
        )
    }

    /// Runs `body` with a storage on a running client; drops the table afterwards unless told not to.
    static func withStorage<Result: Sendable>(
        url: URL, table: String? = nil, drop: Bool = true, _ body: (PostgresOfflineStorage) async throws -> Result
    ) async throws -> Result {
        var configuration = PostgresClient.Configuration(
            host: url.host ?? "127.0.0.1", port: url.port ?? 5432, username: url.user ?? "postgres", password: url.password,
            database: String(url.path.dropFirst()), tls: .disable
        )
        configuration.options.maximumConnections = 16
        let client = PostgresClient(configuration: configuration)
        let table = table ?? "courier_bench_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let storage = PostgresOfflineStorage(client: client, table: table)
            let result = try await body(storage)
            if drop { try await client.query(PostgresQuery(unsafeSQL: "DROP TABLE IF EXISTS \(table)")) }
            return result
        }
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
