import Foundation

extension APIClient {
    // MARK: Connectivity

    /// The connectivity state last published by the client's monitor (``ConnectivityState/unknown``
    /// without ``Configuration/connectivity`` or ``Configuration/offline``). Read without a message.
    public var connectivity: ConnectivityState {
        components.offline?.connectivity.value ?? .unknown
    }

    /// Every debounced connectivity change from now on (the seed of an "offline" banner).
    public func connectivityEvents() -> AsyncStream<ConnectivityEvent> {
        components.offline?.connectivityEvents.subscribe() ?? AsyncStream { $0.finish() }
    }

    /// Tells the monitor what the app knows (its own signal, or a test's): debounced like any
    /// other source. Ignored without a monitor.
    public func reportConnectivity(_ state: ConnectivityState) {
        try? components.offline?.monitor.send(.observe(state, .manual))
    }

    // MARK: Offline queue

    /// Stores `endpoint`'s request in the offline queue without trying to send it now, and
    /// returns its id once it is on disk. It is replayed in order when the client is online
    /// (at the next drain). Use it for writes that must reach the server however the network is.
    /// - Throws: ``NetworkError/queueFull(limit:)``, ``NetworkError/storageFailed(_:)``, a request
    ///   that is invalid or carries its own `Authorization` (never stored), or
    ///   ``NetworkError/componentUnavailable(_:)`` without an offline queue.
    @discardableResult
    public func enqueue<Value>(_ endpoint: Endpoint<Value>) async throws(NetworkError) -> Int64 {
        _ = try offlineQueue()
        return try await components.offline!.enqueue(try makeRequest(endpoint.untyped), requiresAuth: endpoint.options.requiresAuth)
    }

    /// How many items wait to be replayed (queued, retrying, in flight). Read without a message.
    public var pendingOfflineCount: Int {
        components.offline?.queue?.waiting.value ?? 0
    }

    /// Every item of the offline queue, in order: waiting, dead letters, parked conflicts, expired.
    public func offlineItems() async throws(NetworkError) -> [OfflineItem] {
        try await offlineQueue().items()
    }

    /// Queues a dead, expired or conflicting item again (attempts start over, a new expiry), or
    /// makes one waiting for its backoff due now.
    public func retryOfflineItem(_ id: Int64) async throws(NetworkError) {
        try await offlineQueue().retry(id)
        try? components.offline?.coordinator?.send(.itemsAdded)
    }

    /// Removes an item from the offline queue; it will not be replayed.
    public func removeOfflineItem(_ id: Int64) async throws(NetworkError) {
        try await offlineQueue().remove(id)
    }

    /// Removes every item from the offline queue.
    public func clearOfflineQueue() async throws(NetworkError) {
        try await offlineQueue().clear()
    }

    /// Settles a parked conflict (``OfflineItemState/conflict``): ``ConflictResolution/serverWins``
    /// drops the write; ``ConflictResolution/clientWins`` and ``ConflictResolution/merge(_:)``
    /// queue it again under a new idempotency key.
    public func resolveConflict(_ id: Int64, with resolution: ConflictResolution) async throws(NetworkError) {
        try await offlineQueue().resolve(id, resolution)
        try? components.offline?.coordinator?.send(.itemsAdded)
    }

    /// Drains the offline queue now, even if the monitor says offline, and returns when the
    /// drain (or the one already running, and the one after it) has ended.
    public func syncNow() async throws(NetworkError) -> SyncProgress {
        _ = try offlineQueue()
        guard let coordinator = components.offline?.coordinator else { throw .componentUnavailable("SyncCoordinator") }
        return try await coordinator.request { .syncNow($0) }
    }

    /// What happens to queued items (enqueued, delivered, retrying, dead-lettered, conflicts…)
    /// from now on, by item id.
    public func offlineEvents() -> AsyncStream<OfflineEvent> {
        components.offline?.offlineEvents.subscribe() ?? AsyncStream { $0.finish() }
    }

    /// Each drain's progress from now on (done / total, the current item, failures).
    public func syncProgress() -> AsyncStream<SyncProgress> {
        components.offline?.syncProgress.subscribe() ?? AsyncStream { $0.finish() }
    }

    private func offlineQueue() throws(NetworkError) -> OfflineQueue.Handle {
        guard let queue = components.offline?.queue else {
            throw .componentUnavailable("OfflineQueue (the client has no Configuration.offline)")
        }
        return queue
    }
}
