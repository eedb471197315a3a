import Courier
import CourierPostgres
import Foundation

/// One replica's drain at the storage's level: claim a few heads under a lease, send them
/// together with their `Idempotency-Key`s, delete the delivered ones; until nothing waits.
struct Replica: Sendable {
    let storage: PostgresOfflineStorage
    let owner: String
    let receiver: URL
    let lease = Duration.seconds(30)

    func drain(into delivered: DeliveredItems) async throws {
        let client = APIClient(configuration: APIClient.Configuration(baseURL: receiver, retryPolicy: .never))
        defer { Task { await client.shutdown() } }
        while true {
            let claimed = try await storage.claim(owner: owner, limit: 8, identity: nil, now: Date(), lease: lease)
            if claimed.isEmpty {
                if try await storage.waitingCount() == 0 { return }
                try await Task.sleep(for: .milliseconds(2))
                continue
            }
            let sent = await withTaskGroup(of: Int64?.self) { group in
                for item in claimed {
                    group.addTask {
                        var request = item.request
                        request.headers["Idempotency-Key"] = item.idempotencyKey
                        guard let response = try? await client.data(for: request), response.isSuccess else { return nil }
                        await delivered.add(item.id)
                        return item.id
                    }
                }
                return await group.reduce(into: [Int64]()) { if let id = $1 { $0.append(id) } }
            }
            try await storage.write(owner: owner, updating: [], deleting: sent)
        }
    }
}

/// The ids the replicas delivered, and how many came twice.
actor DeliveredItems {
    private var ids = Set<Int64>()
    private var duplicates = 0

    func add(_ id: Int64) {
        if !ids.insert(id).inserted { duplicates += 1 }
    }

    func counts() -> (distinct: Int, duplicates: Int) { (ids.count, duplicates) }
}
