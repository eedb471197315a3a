@testable import Courier

/// The offline queue as the sync coordinator's drains reach it, with a fault hook before each
/// claim: a claim the hook returns an error for throws it instead of asking the queue. That
/// error is not a `NetworkError`, so it breaks the queue's contract: the drain fails, and the
/// coordinator with it, as a crash of the coordinator would. Having claimed nothing, the failed
/// drain leaves no item behind.
struct FaultyDrainQueue: DrainQueue {
    let wrapped: OfflineQueue.Handle
    let fault: @Sendable () -> (any Error)?

    init(_ wrapped: OfflineQueue.Handle, fault: @escaping @Sendable () -> (any Error)?) {
        self.wrapped = wrapped
        self.fault = fault
    }

    var waiting: LatestValue<Int> { wrapped.waiting }

    nonisolated(nonsending) func waitingCount() async -> Int {
        await wrapped.waitingCount()
    }

    nonisolated(nonsending) func claim(limit: Int, identity: String?) async throws -> [OfflineItem] {
        if let error = fault() { throw error }
        return try await wrapped.claim(limit: limit, identity: identity)
    }

    func delivered(_ id: Int64, status: Int) throws {
        try wrapped.delivered(id, status: status)
    }

    nonisolated(nonsending) func settle(_ verdicts: [(id: Int64, verdict: ReplayVerdict)]) async throws -> [OfflineItemState?] {
        try await wrapped.settle(verdicts)
    }

    nonisolated(nonsending) func settle(_ id: Int64, _ verdict: ReplayVerdict) async throws -> OfflineItemState? {
        try await wrapped.settle(id, verdict)
    }
}
