import Foundation

/// Every step a request passes, in order, in one place.
///
/// A call passes ``callSteps`` once, in its caller's task:
/// 1. the **offline gate**: a write marked `queueWhenOffline` is stored in the offline queue
///    instead of sent while the monitor says offline or older writes wait, and when its
///    connection fails;
/// 2. the **cache**: a GET is answered from the shelf (no message) or by the cache actor, which
///    shares one fetch among identical requests, revalidates and stores, and sends its fetch to
///    admission itself; a write that succeeds makes the stored reads of its URL stale;
/// 3. **admission**: the request pipeline's mailbox (a bound on requests in flight, then a
///    bounded queue). Its outcome tells the connectivity monitor what it learnt.
///
/// A queued write's replay enters at admission (``replay(_:as:)``). An admitted
/// request then passes ``attemptSteps`` once per attempt, on a pipeline worker
/// (``RequestExecution``): the user's interceptors, the security guard, auth, logging, and the
/// transport. Each step may change the request on its way out and sees the response on its way
/// back, as OkHttp's interceptor chain does.
///
/// A class: every call takes the client's one chain.
final class RequestChain: Sendable {
    /// One link of a call's outer chain.
    enum CallStep: Sendable {
        case offlineGate
        case cache
        case admission
    }

    /// The steps of one call, in order. A client runs those it has (``steps``).
    static let callSteps: [CallStep] = [.offlineGate, .cache, .admission]
    /// The steps of each attempt of an admitted request, in order. A pipeline runs those it has
    /// (``attemptSteps(for:)``).
    static let attemptSteps: [AttemptStep] = [.interceptors, .securityGuard, .auth, .logging, .transport]

    /// The methods that write: a success invalidates cached reads; they may be queued offline.
    static let unsafeMethods: [HTTPMethod] = [.post, .put, .patch, .delete]

    /// This client's call steps: ``callSteps`` without those it has nothing for.
    let steps: [CallStep]
    let pipeline: RequestPipeline.Handle
    let cache: Cache.Handle?
    let offline: OfflineComponents?
    /// The first auth interceptor a request meets: the cache asks it which requests carry
    /// credentials.
    let authentication: AuthInterceptor?
    let tokens: TokenStore.Handle?

    init(
        pipeline: RequestPipeline.Handle, cache: Cache.Handle?, offline: OfflineComponents?, authentication: AuthInterceptor?,
        tokens: TokenStore.Handle?
    ) {
        steps = Self.callSteps.filter { step in
            switch step {
            case .offlineGate: offline?.queue != nil
            case .cache: cache != nil
            case .admission: true
            }
        }
        (self.pipeline, self.cache, self.offline, self.authentication, self.tokens) = (pipeline, cache, offline, authentication, tokens)
    }

    /// The attempt steps a pipeline with `configuration` runs: ``attemptSteps`` without those
    /// it has nothing for.
    static func attemptSteps(for configuration: RequestPipeline.Configuration) -> [AttemptStep] {
        attemptSteps.filter { step in
            switch step {
            case .interceptors: !configuration.requestInterceptors.isEmpty || !configuration.responseInterceptors.isEmpty
            case .securityGuard: configuration.security != nil
            case .auth: configuration.auth != nil
            case .logging: configuration.logging != nil
            case .transport: true
            }
        }
    }

    /// Runs `request` through every step and returns its final response (a 2xx, or a 3xx that
    /// was not followed).
    nonisolated(nonsending) func send(_ request: HTTPRequest, options: RequestOptions) async throws(NetworkError) -> HTTPResponse {
        if Task.isCancelled { throw .cancelled }
        // Without a cache nothing is stored: `cacheOnly` has nothing to answer with.
        if cache == nil, options.cachePolicy == .cacheOnly { throw .notCached }
        return try await proceed(request, options, from: 0)
    }

    /// Replays a queued write (`item`, as `request`): it enters the chain at admission (it must
    /// not be queued again, nor answered by the cache, whatever its method), with the request's
    /// own timeouts and no retries of its own (the queue schedules them), and, if it was queued
    /// under a session identity, with that identity's credentials or none (the auth step
    /// refuses another's: `unauthorized`); a success makes the stored reads of its URL stale,
    /// as a write's does.
    nonisolated(nonsending) func replay(_ request: HTTPRequest, as item: OfflineItem) async -> Result<HTTPResponse, NetworkError> {
        var options = RequestOptions(
            attemptTimeout: item.attemptTimeout, deadline: item.deadline, retryPolicy: .never, requiresAuth: item.requiresAuth)
        options.sessionIdentity = item.sessionIdentity
        do {
            let response = try await admitted(request, options)
            cache?.forget(.invalidate(url: request.url.absoluteString))
            return .success(response)
        } catch {
            return .failure(error)
        }
    }

    /// Runs the call steps from `index` on.
    private nonisolated(nonsending) func proceed(
        _ request: HTTPRequest, _ options: RequestOptions, from index: Int
    ) async throws(NetworkError) -> HTTPResponse {
        switch steps[index] {
        case .offlineGate: return try await offlineGate(request, options, next: index + 1)
        case .cache: return try await cached(request, options, next: index + 1)
        case .admission: return try await admitted(request, options)
        }
    }

    // MARK: The steps

    /// A write marked `queueWhenOffline` goes to the offline queue while the monitor says
    /// offline, while older writes wait (a live write must not overtake them), and when its
    /// connection fails. Online, a write the queue cannot take (full, storage failing) goes out
    /// live. A request with its own `Authorization` is never queued (that header is never stored).
    private nonisolated(nonsending) func offlineGate(
        _ request: HTTPRequest, _ options: RequestOptions, next: Int
    ) async throws(NetworkError) -> HTTPResponse {
        guard options.offline == .queueWhenOffline, Self.unsafeMethods.contains(request.method),
              !request.headers.contains("Authorization"), let offline, let queue = offline.queue
        else { return try await proceed(request, options, from: next) }
        var request = request
        // The key goes on the live attempt too: if the connection drops after the server
        // applied the write, the replay carries the same key.
        if !request.headers.contains("Idempotency-Key") {
            request.headers.add(name: "Idempotency-Key", value: UUID().uuidString)
        }
        if offline.connectivity.value == .offline {
            throw .queued(itemID: try await offline.enqueue(await queueable(request, options)))
        }
        // Counted once the store is open: right after launch, stored writes wait too.
        if await queue.waitingCount() > 0, let id = try? await offline.enqueue(await queueable(request, options)) {
            throw .queued(itemID: id)
        }
        do {
            return try await proceed(request, options, from: next)
        } catch {
            guard case .noConnection = error else { throw error }
            // The connection may have failed after the server took the write: its replay may
            // find the key still in progress there.
            throw .queued(itemID: try await offline.enqueue(await queueable(request, options, keyMayBeInProgress: true)))
        }
    }

    /// `request`, sent with `options`, as the offline queue stores it: with the session identity
    /// whose credentials it would carry (its replay carries that identity's or none), and its
    /// own timeouts.
    nonisolated(nonsending) func queueable(
        _ request: HTTPRequest, _ options: RequestOptions, keyMayBeInProgress: Bool = false
    ) async -> OfflineWrite {
        var identity: String?
        if options.requiresAuth, tokens != nil, let authentication, !authentication.isPublic(pathOf: request.url) {
            identity = await sessionIdentity()
        }
        return OfflineWrite(
            request: request, requiresAuth: options.requiresAuth, sessionIdentity: identity,
            attemptTimeout: options.attemptTimeout ?? request.timeout, deadline: options.deadline,
            keyMayBeInProgress: keyMayBeInProgress)
    }

    /// The identity the app gave the session now (``Tokens/identity``), which queued writes are
    /// bound to; `nil` when it gave none, when signed out, or without a session. Right after
    /// launch, once the token store has loaded the saved tokens.
    nonisolated(nonsending) func sessionIdentity() async -> String? {
        guard let tokens else { return nil }
        // The store loads the saved tokens before its first message: one ask, at launch only.
        if !tokens.credential.read({ $0.isPublished }) { _ = try? await tokens.state() }
        return tokens.credential.read { $0.appIdentity }
    }

    /// A GET (or a read with its own key, ``RequestOptions/readKey``) the cache may answer: a
    /// fresh hit from the shelf without a message, anything else by the cache actor. A write
    /// that succeeded makes the stored reads of its URL stale.
    private nonisolated(nonsending) func cached(
        _ request: HTTPRequest, _ options: RequestOptions, next: Int
    ) async throws(NetworkError) -> HTTPResponse {
        guard let cache else { return try await proceed(request, options, from: next) }
        // A stream is never cached (nor answered from the cache): its body is the caller's alone.
        if options.stream != nil, request.method == .get { return try await proceed(request, options, from: next) }
        guard request.method == .get || options.readKey != nil else {
            let response = try await proceed(request, options, from: next)
            if Self.unsafeMethods.contains(request.method) { cache.forget(.invalidate(url: request.url.absoluteString)) }
            return response
        }
        // Entries are filed under the parsed URL's text, which is what invalidations name.
        let url = options.readKey ?? request.url.absoluteString
        guard let identity = cacheIdentity(of: request, url: url, options) else { return try await proceed(request, options, from: next) }
        let key = CacheKey(url: url, identity: identity)
        let (policy, ttl) = (options.cachePolicy ?? cache.defaultPolicy, options.cacheTTL ?? cache.defaultTTL)
        if policy == .cacheFirst, ttl != .noCache, let fresh = cache.freshResponse(headers: request.headers, key: key) {
            return fresh
        }
        let waiting = CacheRequest(request: request, key: key, options: options, policy: policy, ttl: ttl)
        // What the network answered tells the monitor what it learnt; an answer from storage
        // (a response without metrics) says nothing.
        do {
            let response = try await cache.get(waiting)
            if response.metrics != nil { offline?.learn(from: .success(response)) }
            return response
        } catch RuntimeError.componentRestarted {
            // The cache failed while holding this request: the network answers instead.
            return try await proceed(request, options, from: next)
        } catch {
            let error = NetworkError(answer: error)
            offline?.learn(from: .failure(error))
            throw error
        }
    }

    /// The request pipeline's admission, then its attempts; the outcome tells the connectivity
    /// monitor what it learnt (a refused connection: offline; any answer: online).
    private nonisolated(nonsending) func admitted(_ request: HTTPRequest, _ options: RequestOptions) async throws(NetworkError) -> HTTPResponse {
        do {
            let response = try await pipeline.send(request, options: options)
            offline?.learn(from: .success(response))
            return response
        } catch {
            let error = NetworkError(answer: error)
            offline?.learn(from: .failure(error))
            throw error
        }
    }

    /// Whose cached responses `request` may use: "" (shared) when it carries no credentials, the
    /// session's identity when it carries the session's, and `nil` (not cached at all) when it
    /// carries credentials of unknown identity (its own `Authorization`, or a token closure's).
    private func cacheIdentity(of request: HTTPRequest, url: String, _ options: RequestOptions) -> String? {
        if request.headers.contains("Authorization") { return nil }
        guard options.requiresAuth, let isPublic = authentication?.isPublic(pathOfURLText: url) else { return "" }
        return isPublic ? "" : tokens?.credential.read { $0.identity }
    }
}
