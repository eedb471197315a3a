import Foundation

/// The offline queue's calls: `client.offline`. Writes sent with ``send(_:)`` or
/// ``perform(_:headers:options:)`` while offline, and those given to ``enqueue(_:)``, wait here,
/// durably, and are replayed in order when the client is online.
///
/// Without ``APIClient/Configuration/offline`` every call (``pendingCount`` included) throws
/// ``NetworkError/componentUnavailable(_:)`` named `"offline"`, and every event stream finishes at
/// once (the rule of every optional group; see ``APIClient``).
public struct ClientOfflineQueue: Sendable {
    let offline: OfflineComponents?
    /// The chain's gate: an enqueued write is stored as a queued live write is.
    let gate: OfflineGate?
    /// Builds an endpoint's request, as the client's calls do.
    let requests: RequestBuilder
    let chain: RequestChain
    let decoder: JSONDecoder
    let graphQL: ClientGraphQL

    /// Sends `endpoint` (a `POST`, `PUT`, `PATCH` or `DELETE`) now if the client is online, else
    /// stores it in the queue and returns ``OfflineDelivery/queued(itemID:)`` once it is on
    /// disk; also when its live attempt's failure says the device is offline (the OS said so,
    /// or its host was not found or unreachable while nothing says online; never a server that
    /// refused it), and while older writes wait (a live write never overtakes them). The write carries an `Idempotency-Key`, the same on the live attempt and
    /// every replay. Any other method, or a request with its own `Authorization`, is sent as
    /// ``APIClient/send(_:)`` sends it.
    /// - Throws: what ``APIClient/send(_:)`` throws, except a failure of a write that says
    ///   offline, which is queued (a refused connection is thrown: ``NetworkError/cannotConnect(host:port:reason:underlying:)``); ``NetworkError/componentUnavailable(_:)`` without an offline queue.
    public func send<Value>(_ endpoint: Endpoint<Value>) async throws(NetworkError) -> OfflineDelivery<Response<Value>> {
        guard gate != nil else { throw ClientGroup.offline.unavailable }
        let untyped = endpoint.untyped
        let response = try await chain.send(try requests.request(for: untyped), options: untyped.options, settings: CallSettings(queuesWhenOffline: true))
        if let id = response.queuedItemID { return .queued(itemID: id) }
        return .sent(try Response.decoding(response, with: decoder))
    }

    /// Runs `mutation` as ``ClientGraphQL/perform(_:headers:options:)`` does when the client is
    /// online, else stores it in the queue as ``send(_:)`` stores a write. Give it an
    /// `Idempotency-Key` in `headers` to choose the key it is replayed under.
    public func perform<Mutation: GraphQLMutation>(
        _ mutation: Mutation, headers: HTTPHeaders = [:], options: RequestOptions = RequestOptions()
    ) async throws(NetworkError) -> OfflineDelivery<Mutation.Data> {
        guard gate != nil else { throw ClientGroup.offline.unavailable }
        let outcome = try await graphQL.outcome(for: mutation, headers: headers, options: options, queuesWhenOffline: true)
        if let id = outcome.queuedItemID { return .queued(itemID: id) }
        return .sent(try ClientGraphQL.data(of: outcome.result!))
    }

    /// Runs `mutation` as ``perform(_:headers:options:)`` does, with an optimistic layer:
    /// `optimisticResponse` (its `data` as the server is expected to answer it) is written over
    /// the GraphQL records at once, so watchers show it whether the mutation is sent or queued.
    /// Sent, the server's answer replaces the layer (an error rolls it back), as
    /// ``ClientGraphQL/perform(_:optimisticResponse:headers:options:)`` does. Queued, the layer
    /// stays until the queue replays it (the replay's answer replaces it) or gives up on it (a
    /// dead letter, an expiry, a removal, `serverWins`: rolled back). Layers live in memory: a
    /// write still queued when the process ends is replayed later without one.
    /// - Throws: what ``perform(_:headers:options:)`` throws; ``NetworkError/invalidRequest(_:)``
    ///   without ``GraphQLConfiguration/normalizedCache``.
    public func perform<Mutation: GraphQLMutation>(
        _ mutation: Mutation, optimisticResponse: [String: JSONValue], headers: HTTPHeaders = [:], options: RequestOptions = RequestOptions()
    ) async throws(NetworkError) -> OfflineDelivery<Mutation.Data> {
        guard gate != nil else { throw ClientGroup.offline.unavailable }
        let records = try graphQL.requireRecords()
        let access = try records.access(mutation)
        let layer = records.addLayer(records.normalize(optimisticResponse, access))
        records.beginQueuedLayer()
        let outcome: (result: GraphQLResult<Mutation.Data>?, queuedItemID: Int64?)
        do {
            outcome = try await graphQL.outcome(for: mutation, headers: headers, options: options, queuesWhenOffline: true)
        } catch {
            records.abandonQueuedLayer(layer)
            throw error
        }
        if let id = outcome.queuedItemID {
            records.holdQueuedLayer(layer, access: access, for: id)
            return .queued(itemID: id)
        }
        // Sent: the server's records were written under the layer.
        records.abandonQueuedLayer(layer)
        return .sent(try ClientGraphQL.data(of: outcome.result!))
    }

    /// Stores `endpoint`'s request without trying to send it now, and returns its id once it is
    /// on disk. It is replayed in order at the next drain, with the endpoint's own timeouts, and
    /// only under the session identity signed in now (``OfflineItem/sessionIdentity``). Use it
    /// for writes that must reach the server however the network is.
    /// - Throws: ``NetworkError/queueFull(limit:)``, ``NetworkError/storageFailed(_:)``, or a
    ///   request that is invalid or carries its own `Authorization` (never stored).
    @discardableResult
    public func enqueue<Value>(_ endpoint: Endpoint<Value>) async throws(NetworkError) -> Int64 {
        guard let offline, let gate else { throw ClientGroup.offline.unavailable }
        let request = try requests.request(for: endpoint.untyped)
        return try await offline.enqueue(await gate.queueable(request, endpoint.options))
    }

    /// How many items wait to be replayed (queued, retrying, in flight), the writes stored by
    /// an earlier run included: the first read after launch waits until the queue has opened its
    /// store; later ones read the published count without a message.
    public var pendingCount: Int {
        get async throws(NetworkError) { try await queue().waitingCount() }
    }

    /// Every item, in order: waiting, dead letters, parked conflicts, expired.
    public func items() async throws(NetworkError) -> [OfflineItem] {
        try await queue().items()
    }

    /// Queues a dead, expired or conflicting item again (attempts start over, a new expiry), or
    /// makes one waiting for its backoff due now.
    public func retry(_ id: Int64) async throws(NetworkError) {
        try await queue().retry(id)
        try? offline?.coordinator?.send(.itemsAdded)
    }

    /// Removes an item; it will not be replayed.
    public func remove(_ id: Int64) async throws(NetworkError) {
        try await queue().remove(id)
    }

    /// Removes every item.
    public func clear() async throws(NetworkError) {
        try await queue().clear()
    }

    /// Settles a parked conflict (``OfflineItemState/conflict``): ``ConflictResolution/serverWins``
    /// drops the write; ``ConflictResolution/clientWins`` and ``ConflictResolution/merge(_:)``
    /// queue it again under a new idempotency key.
    public func resolveConflict(_ id: Int64, with resolution: ConflictResolution) async throws(NetworkError) {
        try await queue().resolve(id, resolution)
        try? offline?.coordinator?.send(.itemsAdded)
    }

    /// Drains the queue now, even if the monitor says offline, and returns when the drain (or
    /// the one already running, and the one after it) has ended.
    public func sync() async throws(NetworkError) -> SyncProgress {
        _ = try queue()
        guard let coordinator = offline?.coordinator else { throw ClientGroup.offline.unavailable }
        return try await coordinator.request { .syncNow($0) }
    }

    /// What happens to queued items (enqueued, delivered, retrying, dead-lettered, conflicts…)
    /// from now on, by item id; a subscriber that falls behind keeps the newest `buffer` events.
    public func events(buffer: Int = ClientGroup.eventBuffer) -> AsyncStream<OfflineEvent> {
        guard let offline, offline.queue != nil else { return ClientGroup.finished() }
        return offline.offlineEvents.subscribe(bufferingPolicy: .bufferingNewest(buffer))
    }

    /// Each drain's progress from now on (done / total, the current item, failures); a
    /// subscriber that falls behind keeps the newest `buffer` reports.
    public func progress(buffer: Int = ClientGroup.eventBuffer) -> AsyncStream<SyncProgress> {
        guard let offline, offline.queue != nil else { return ClientGroup.finished() }
        return offline.syncProgress.subscribe(bufferingPolicy: .bufferingNewest(buffer))
    }

    private func queue() throws(NetworkError) -> OfflineQueue.Handle {
        guard let queue = offline?.queue else { throw ClientGroup.offline.unavailable }
        return queue
    }
}
