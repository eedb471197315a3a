import Foundation

/// A client's components, built and wired in one place. ``children`` is the supervision order,
/// read top to bottom: each component may send only to those before it. Every mailbox exists
/// before any component starts, so handles are made first and given to whoever needs them.
struct ClientComponents: Sendable {
    let chain: RequestChain
    /// The chain's offline gate, when the client has an offline queue: `client.offline.enqueue`
    /// stores writes as it does.
    let gate: OfflineGate?
    let pipeline: RequestPipeline.Handle
    /// The session's token store, when the configuration has ``APIClient/Configuration/session``.
    let tokens: TokenStore.Handle?
    /// The response cache, when the configuration has ``APIClient/Configuration/caching``.
    let cache: Cache.Handle?
    /// The connectivity monitor, offline queue and sync coordinator, when configured.
    let offline: OfflineComponents?
    /// The cookie store, when the configuration has ``APIClient/Configuration/cookies``.
    let cookies: CookieStore?
    let requestEvents = EventBroadcaster<RequestEvent>()
    let tokenEvents = EventBroadcaster<TokenEvent>()
    let cacheEvents = EventBroadcaster<CacheEvent>()
    /// What the supervisor starts, in this order.
    let children: [ChildSpec]

    init(_ configuration: APIClient.Configuration, base: Result<URLBuilder.Base, NetworkError>) {
        let clock = configuration.clock
        // The handles first: mailboxes and the values components publish.
        let tokenMailbox = Mailbox<TokenStore.Message>(name: "TokenStore")
        let tokens = configuration.session.map { _ in
            TokenStore.Handle(mailbox: tokenMailbox, credential: LatestValue(.unpublished), clock: clock)
        }
        let (pipeline, pipelineChild) = RequestPipeline.child(RequestPipeline.Environment(
            mailbox: Mailbox(name: "RequestPipeline"), maxConcurrentRequests: max(1, configuration.limits.maxConcurrentRequests),
            maxQueuedRequests: max(0, configuration.limits.maxQueuedRequests), retryBudget: configuration.retryBudget, clock: clock,
            adaptive: configuration.limits.adaptive, events: requestEvents))
        let cacheMailbox = Mailbox<Cache.Message>(name: "Cache")
        let cache = configuration.caching.map { caching in
            Cache.Handle(
                mailbox: cacheMailbox,
                shelf: Locked(CacheShelf(storage: CacheStorage(maxEntries: caching.maxEntries, maxBytes: caching.maxBytes))),
                clock: clock, defaultPolicy: caching.policy, defaultTTL: caching.ttl)
        }
        // A monitor when the configuration has connectivity or an offline queue.
        let offline = configuration.connectivity == nil && configuration.offline == nil ? nil : OfflineComponents(
            learnsFromRequests: (configuration.connectivity ?? .init()).learnsFromRequests, hasQueue: configuration.offline != nil,
            sharedQueue: configuration.offline?.sharedStorage != nil)
        let settings = ChainSettings(
            baseURL: configuration.baseURL, logger: configuration.logging.logger, redaction: configuration.logging.redaction, clock: clock,
            random: configuration.random, maxResponseBytes: configuration.limits.maxResponseBytes, events: requestEvents,
            errorBody: configuration.errorBody, decoder: configuration.json.makeDecoder())
        let admission = AdmissionStep(
            pipeline: pipeline, attemptTimeout: configuration.timeouts.attempt, requestDeadline: configuration.timeouts.request)
        let cookies = configuration.cookies.map { CookieStore($0, clock: clock) }
        let (steps, admissionIndex) = Self.steps(
            configuration, tokens: tokens, pipeline: pipeline, admission: admission, cache: cache, offline: offline, cookies: cookies)
        let chain = RequestChain(steps: steps, settings: settings, admission: admissionIndex, hasCache: cache != nil)
        (self.chain, self.pipeline, self.tokens, self.cache, self.offline, self.cookies) = (chain, pipeline, tokens, cache, offline, cookies)
        gate = steps.lazy.compactMap { $0.step as? OfflineGate }.first

        // The supervision order.
        var children: [ChildSpec] = []
        // The token store: the auth step reads its credential; its refresh call passes the
        // steps after admission without a slot.
        if let session = configuration.session, let tokens {
            let unadmitted: @Sendable (HTTPRequest) async -> Result<HTTPResponse, NetworkError> = { request in
                let from = InterceptorChain(
                    steps: steps, index: admissionIndex, call: ChainCall(client: settings, options: RequestOptions(requiresAuth: false)), once: nil)
                do throws(NetworkError) {
                    return .success(try await admission.unadmitted(request, from))
                } catch {
                    return .failure(error)
                }
            }
            let environment = TokenStore.Environment(
                mailbox: tokenMailbox, credential: tokens.credential, events: tokenEvents, persistence: session.persistence,
                refresh: APIClient.refreshCall(session, base: base, send: unadmitted, json: configuration.json, clock: clock),
                threshold: session.refreshThreshold, maxRefreshes: session.maxRefreshes, refreshWindow: session.refreshWindow,
                clock: clock)
            children.append(.component(mailbox: tokenMailbox) { TokenStore(environment, scope: $0) })
        }
        // The request pipeline: admission and the retry budget.
        children.append(pipelineChild)
        // The cache: its fetches enter the chain at admission, in tasks of their own.
        if let caching = configuration.caching, let cache {
            var environment = Cache.Environment(
                mailbox: cacheMailbox,
                maxEntries: caching.maxEntries, maxBytes: caching.maxBytes,
                defaultTTL: Int(caching.defaultTTL.inSeconds.rounded(.down)), clock: clock, shelf: cache.shelf)
            environment.storage = caching.storage
            environment.events = cacheEvents
            environment.persistence = caching.storageFile.map { (path: $0.path, maxBytes: caching.storageMaxBytes) }
            children.append(.component(mailbox: cacheMailbox) { [environment] in Cache(environment) })
        }
        if let offline {
            children += Self.connectivityChildren(offline, configuration)
            children += Self.offlineChildren(
                offline, configuration, replay: { request, item in await Self.replay(request, item, chain: chain, cache: cache, offline: offline) },
                identity: { await tokens?.appIdentity() })
        }
        self.children = children
    }

    /// Every step of the client's chain, in order, and where admission is in it: the one list
    /// of built-in steps. A client has only the steps it has something for.
    private static func steps(
        _ configuration: APIClient.Configuration, tokens: TokenStore.Handle?, pipeline: RequestPipeline.Handle, admission: AdmissionStep,
        cache: Cache.Handle?, offline: OfflineComponents?, cookies: CookieStore?
    ) -> ([ChainLink], admission: Int) {
        let auth = configuration.authentication(tokens: tokens)
        // The first auth interceptor a request meets: the cache and the gate ask it which
        // requests carry credentials.
        let authentication = configuration.requestInterceptors.lazy.compactMap { $0 as? AuthInterceptor }.first ?? auth
        let hasLists = !configuration.requestInterceptors.isEmpty || !configuration.responseInterceptors.isEmpty
        let builtIn: [(any Interceptor)?] = [
            offline.flatMap { offline in
                offline.queue.map { OfflineGate(offline: offline, queue: $0, tokens: tokens, authentication: authentication) }
            },
            offline.map { ConnectivityStep(offline: $0) },
            cache.map {
                CacheStep(
                    cache: $0, authentication: authentication, tokens: tokens, cookies: cookies, pipeline: pipeline,
                    logging: configuration.logging.interceptor)
            } ?? QueryCoalescingStep(authentication: authentication, tokens: tokens, pipeline: pipeline),
            admission,
            RetryStep(policy: configuration.retryPolicy, pipeline: pipeline, tokens: tokens, userAgent: configuration.userAgent),
            HedgingStep(policy: configuration.hedging, pipeline: pipeline),
            CircuitBreakerStep(policy: configuration.circuitBreaker),
        ]
        let afterYours: [(any Interceptor)?] = [
            RedirectStep(policy: configuration.redirects),
            configuration.security,
            auth.map { AuthStep(auth: $0) },
            // Per hop and per Digest re-send, so each redirect's URL gets its own cookies and a
            // 401's Set-Cookie reaches the re-send; after the guard, as every credential is.
            cookies.map { CookieStep(store: $0) },
            configuration.logging.interceptor,
            TransportStep(transport: configuration.transport),
        ]
        var links = builtIn.compactMap { $0 }.map { ChainLink(step: $0, isUsers: false) }
        let admissionIndex = links.firstIndex { $0.step is AdmissionStep } ?? 0
        if hasLists {
            links.append(ChainLink(
                step: InterceptorLists(requestInterceptors: configuration.requestInterceptors, responseInterceptors: configuration.responseInterceptors),
                isUsers: false))
        }
        links += configuration.interceptors.map { ChainLink(step: $0, isUsers: true) }
        links += afterYours.compactMap { $0 }.map { ChainLink(step: $0, isUsers: false) }
        return (links, admissionIndex)
    }

    /// Replays a queued write (`item`, as `request`): it enters the chain at admission (it must
    /// not be queued again, nor answered by the cache, whatever its method), with the item's own
    /// timeouts and no retries of its own (the queue schedules them), and, if it was queued
    /// under a session identity, with that identity's credentials or none (the auth step
    /// refuses another's: `unauthorized`). Its outcome tells the monitor what it learnt; a
    /// success makes the stored reads of its URL stale, as a write's does. It waits for a slot
    /// as ``RequestPriority/background``: the calls a person waits on go first.
    private static func replay(
        _ request: HTTPRequest, _ item: OfflineItem, chain: RequestChain, cache: Cache.Handle?, offline: OfflineComponents
    ) async -> Result<HTTPResponse, NetworkError> {
        let options = RequestOptions(
            attemptTimeout: item.attemptTimeout, deadline: item.deadline, retryPolicy: .never, requiresAuth: item.requiresAuth,
            priority: .background)
        let result = await chain.sendAdmitted(request, options: options, settings: CallSettings(sessionIdentity: item.sessionIdentity))
        offline.learn(from: result)
        if case .success(let response) = result {
            cache?.forget(.invalidate(url: request.url.absoluteString))
            if response.isSuccess { offline.replays.publish((item.id, response)) }
        }
        return result
    }

    /// The connectivity monitor and the sources that feed it: the OS's link watcher and the
    /// probe, when configured.
    private static func connectivityChildren(_ offline: OfflineComponents, _ configuration: APIClient.Configuration) -> [ChildSpec] {
        let settings = configuration.connectivity ?? .init()
        let monitor = offline.monitor
        let probeNow = settings.probeURL.map { _ in WakeSignal() }
        let environment = NetworkMonitor.Environment(
            mailbox: monitor, current: offline.connectivity, observed: offline.observed, events: offline.connectivityEvents,
            debounce: settings.debounce, clock: configuration.clock, probeNow: probeNow)
        var children: [ChildSpec] = [.component(mailbox: monitor) { NetworkMonitor(environment, scope: $0) }]
        if settings.watchesLink {
            children.append(ChildSpec(name: "LinkWatcher", restart: .transient) {
                await OfflineComponents.watchLink { up in try? monitor.send(.observe(up ? .online : .offline, .link)) }
            })
        }
        if let url = settings.probeURL, let probeNow {
            let probe = ConnectivityProbe(
                url: url, timeout: settings.probeTimeout,
                schedule: ProbeSchedule(interval: settings.probeInterval, retryDelay: settings.probeRetryDelay),
                transport: configuration.transport, clock: configuration.clock, monitor: monitor, wake: probeNow)
            children.append(ChildSpec(name: "ConnectivityProbe") { try await probe.run() })
        }
        return children
    }

    /// The offline queue, the sync coordinator that drains it through `replay` (under the
    /// session's `identity`), and the coordinator's two feeders: the monitor's changes forwarded,
    /// and the periodic tick.
    private static func offlineChildren(
        _ offline: OfflineComponents, _ configuration: APIClient.Configuration,
        replay: @escaping Drain.Send, identity: @escaping @Sendable () async -> String?
    ) -> [ChildSpec] {
        guard let settings = configuration.offline, let queue = offline.queue, let coordinator = offline.coordinator else { return [] }
        let clock = configuration.clock
        var queueEnvironment = OfflineQueue.Environment(
            path: settings.storageFile?.path ?? ":memory:", limits: settings.limits, clock: clock, events: offline.offlineEvents,
            waiting: queue.waiting, loaded: queue.loaded, storage: settings.storage)
        queueEnvironment.orderingKey = settings.orderingKey
        let coordinatorEnvironment = SyncCoordinator.Environment(
            mailbox: coordinator, queue: settings.drainQueue(queue), send: replay, identity: identity, resolver: settings.conflicts,
            connectivity: offline.connectivity, progress: offline.syncProgress, running: offline.running)
        let (events, current, interval) = (offline.connectivityEvents, offline.connectivity, settings.drainInterval)
        let (queueMailbox, loaded) = (queue.mailbox, queue.loaded)
        return [
            // Closed for good (shutdown, or the supervisor gave up) before its store was ever
            // opened, the queue will not open it now: whoever waits for that open goes on (the
            // count reads 0, and asks fail `componentUnavailable`).
            settings.sharedStorage.map { storage in
                // One owner per client, kept across the queue's restarts (its settles of the
                // turns a predecessor claimed pass the storage's fence).
                let environment = SharedOfflineQueue.Environment(
                    storage: storage, owner: UUID().uuidString, lease: settings.lease, orderingKey: settings.orderingKey,
                    limits: settings.limits, clock: clock, events: offline.offlineEvents, waiting: queue.waiting, loaded: loaded,
                    mailbox: queueMailbox)
                return .component(mailbox: queueMailbox, closed: { loaded.open() }) { scope in
                    try? queueMailbox.send(.open)
                    return SharedOfflineQueue(environment, scope: scope)
                }
            } ?? .component(mailbox: queue.mailbox, closed: { loaded.open() }) { [queueEnvironment] in
                // Every instance opens the store at once: a restarted one (say, its predecessor
                // failed on `open`, the first message) must not wait for a caller's message,
                // since the first callers wait for the open (`loaded`) before sending any.
                try? queueMailbox.send(.open)
                return OfflineQueue(queueEnvironment)
            },
            .component(mailbox: coordinator) { SyncCoordinator(coordinatorEnvironment, scope: $0) },
            ChildSpec(name: "ConnectivityForwarder", restart: .transient) {
                try await SyncCoordinator.forwardConnectivity(coordinator, events: events, current: current)
            },
            ChildSpec(name: "SyncTimer") {
                while !Task.isCancelled {
                    do { try await clock.sleep(for: interval) } catch { return }
                    try coordinator.send(.tick)
                }
            },
        ] + (settings.sharedStorage.map { storage in
            // Another client sharing the storage added items: counted, then drained here too.
            [ChildSpec(name: "OfflineWakeUps", restart: .transient) {
                for await _ in storage.wakeUps() {
                    _ = try? await queue.refresh()
                    try coordinator.send(.itemsAdded)
                }
            }]
        } ?? [])
    }
}
