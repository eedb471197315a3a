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

    /// Durable enqueues per second: `enqueuers` tasks each inserting one item at a time.
    static func enqueueRate(url: URL, writes: Int, enqueuers: Int) async throws -> Double {
        try await withStorage(url: url) { storage in
            try await storage.prepare()
            let start = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for enqueuer in 0..<enqueuers {
                    group.addTask {
                        for sequence in 0..<(writes / enqueuers) {
                            _ = try await storage.insert([item(key: "e\(enqueuer)", sequence: sequence, receiver: URL(string: "http://127.0.0.1:9")!)])
                        }
                    }
                }
                try await group.waitForAll()
            }
            return Double(writes / enqueuers * enqueuers) / (ContinuousClock.now - start).seconds
        }
    }

    /// Items per second drained by `replicas` replicas (each its own PostgreSQL and HTTP
    /// client) from a table of `items` items over 64 ordering keys.
    static func drainRate(url: URL, items count: Int, replicas: Int, receiver: URL) async throws -> Drain {
        let table = "courier_bench_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        let ids = try await withStorage(url: url, table: String(table), drop: false) { storage in
            try await storage.insert((0..<count).map { item(key: "k\($0 % 64)", sequence: $0 / 64, receiver: receiver) })
        }
        let delivered = DeliveredItems()
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for replica in 0..<replicas {
                group.addTask {
                    try await withStorage(url: url, table: String(table), drop: false) { storage in
                        try await Replica(storage: storage, owner: "replica-\(replica)", receiver: receiver).drain(into: delivered)
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = (ContinuousClock.now - start).seconds
        let (distinct, duplicates) = await delivered.counts()
        try await withStorage(url: url, table: String(table)) { _ in }
        return Drain(rate: Double(distinct) / elapsed, lost: ids.count - distinct, duplicates: duplicates)
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
