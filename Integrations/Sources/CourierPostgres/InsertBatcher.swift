import Courier

/// Group commit for inserts: calls that arrive while a batch is being written wait and go
/// together in the next one, as one multi-row `INSERT` in one transaction. PostgreSQL holds a
/// global lock from a `NOTIFY`'s commit until the transaction ends, so separate notifying
/// commits run one after another, each waiting for its own WAL flush; one commit per batch
/// pays that once for all its callers. Each caller still returns only once its batch committed.
actor InsertBatcher {
    /// Writes one batch in one transaction, returning the ids in order.
    typealias Write = @Sendable ([OfflineItem]) async throws -> [Int64]

    private var waiting: [(count: Int, items: [OfflineItem], continuation: CheckedContinuation<[Int64], any Error>)] = []
    private var writing = false

    /// `items`' ids, once the batch holding them committed (written by `write`, the same
    /// function for every call on one storage); what the batch threw, else.
    func insert(_ items: [OfflineItem], write: @escaping Write) async throws -> [Int64] {
        try await withCheckedThrowingContinuation { continuation in
            waiting.append((items.count, items, continuation))
            if !writing {
                writing = true
                Task { await self.writeBatches(write) }
            }
        }
    }

    /// Writes what waits, batch after batch, until nothing does.
    private func writeBatches(_ write: Write) async {
        while !waiting.isEmpty {
            let batch = waiting
            waiting = []
            do {
                let ids = try await write(batch.flatMap { $0.items })
                guard ids.count == batch.reduce(0, { $0 + $1.count }) else {
                    throw NetworkError.storageFailed("PostgreSQL: an insert returned \(ids.count) ids for its rows")
                }
                var offset = 0
                for caller in batch {
                    caller.continuation.resume(returning: Array(ids[offset..<(offset + caller.count)]))
                    offset += caller.count
                }
            } catch {
                for caller in batch { caller.continuation.resume(throwing: error) }
            }
        }
        writing = false
    }
}
