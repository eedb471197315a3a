import Foundation

/// The offline queue's part of a call: a write sent with `client.offline.send` or `perform` is
/// stored in the durable queue instead of sent while the monitor says offline, while older
/// writes wait (a live write must not overtake them), and when its live attempt fails in a way
/// that says the device is offline (``OfflineGate/saysOffline(_:)``); the call's
/// answer is then a `202` carrying the item's id (``HTTPResponse/queuedItemID``), which the
/// offline group turns into ``OfflineDelivery/queued(itemID:)``. Online, a write the queue
/// cannot take (full, storage failing) goes out live. A request with its own `Authorization` is
/// never queued (that header is never stored).
struct OfflineGate: Interceptor {
    let offline: OfflineComponents
    let queue: OfflineQueue.Handle
    /// The session whose identity a queued write is bound to, and the auth interceptor that says
    /// which requests carry its credentials.
    let tokens: TokenStore.Handle?
    let authentication: AuthInterceptor?

    func intercept(_ request: HTTPRequest, chain: InterceptorChain) async throws -> HTTPResponse {
        try await gate(request, chain)
    }

    private nonisolated(nonsending) func gate(_ request: HTTPRequest, _ chain: InterceptorChain) async throws(NetworkError) -> HTTPResponse {
        let options = chain.call.options
        guard chain.call.settings.queuesWhenOffline, request.method.writes, !request.headers.contains("Authorization")
        else { return try await chain.proceed(request) }
        var request = request
        // The key goes on the live attempt too: if the connection drops after the server
        // applied the write, the replay carries the same key.
        if !request.headers.contains("Idempotency-Key") {
            request.headers.add(name: "Idempotency-Key", value: UUID().uuidString)
        }
        if offline.connectivity.value == .offline {
            return Self.queued(try await offline.enqueue(await queueable(request, options)))
        }
        // Counted once the store is open: right after launch, stored writes wait too.
        if await queue.waitingCount() > 0, let id = try? await offline.enqueue(await queueable(request, options)) {
            return Self.queued(id)
        }
        do {
            return try await chain.proceed(request)
        } catch {
            guard saysOffline(error) else { throw error }
            // The connection may have failed after the server took the write: its replay may
            // find the key still in progress there.
            let keyMayBeInProgress = if case .cannotConnect = error { false } else { true }
            return Self.queued(try await offline.enqueue(await queueable(request, options, keyMayBeInProgress: keyMayBeInProgress)))
        }
    }

    /// Whether a live attempt's `error` says the device is offline, so the write is queued
    /// rather than failed. Only a failure to reach the server counts (a refusal, a status, a
    /// cancellation or a client-side error is an answer: the server may have acted, or the
    /// caller gave up): the operating system said offline (`noConnection`); the connection
    /// failed, broke or timed out while the monitor says offline (the link went down during
    /// the attempt); or the name did not resolve or the network was unreachable while the
    /// monitor has no evidence either way (what an offline machine answers, before any source
    /// has spoken). A server that refused the connection or failed the TLS handshake, a lost
    /// connection or a timeout while the monitor does not say offline fail the call: one
    /// upstream down is not the device offline.
    func saysOffline(_ error: NetworkError) -> Bool {
        switch error {
        case .noConnection:
            return true
        case .cannotConnect, .connectionLost, .timeout:
            break
        default:
            return false
        }
        if offline.connectivity.value == .offline || offline.observed.value == .offline { return true }
        switch error {
        case .cannotConnect(_, _, .hostNotFound, _), .cannotConnect(_, _, .unreachable, _):
            return offline.connectivity.value == .unknown && offline.observed.value == .unknown
        default:
            return false
        }
    }

    /// The answer to a write stored as item `id`: accepted, not sent.
    private static func queued(_ id: Int64) -> HTTPResponse {
        var response = HTTPResponse(status: 202)
        response.queuedItemID = id
        return response
    }

    /// `request`, sent with `options`, as the offline queue stores it: with the session identity
    /// whose credentials it would carry (its replay carries that identity's or none), and its
    /// own timeouts.
    nonisolated(nonsending) func queueable(
        _ request: HTTPRequest, _ options: RequestOptions, keyMayBeInProgress: Bool = false
    ) async -> OfflineWrite {
        var identity: String?
        if options.requiresAuth, let tokens, let authentication, !authentication.isPublic(pathOf: request.url) {
            identity = await tokens.appIdentity()
        }
        return OfflineWrite(
            request: request, requiresAuth: options.requiresAuth, sessionIdentity: identity,
            attemptTimeout: options.attemptTimeout ?? request.timeout, deadline: options.deadline,
            orderingKey: options.orderingKey, keyMayBeInProgress: keyMayBeInProgress)
    }
}
