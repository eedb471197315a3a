import Foundation

/// A client's components, built and wired in one place. ``children`` is the supervision order,
/// read top to bottom: each component may send only to those before it. Every mailbox exists
/// before any component starts, so handles are made first and given to whoever needs them.
struct ClientComponents: Sendable {
    let chain: RequestChain
    let pipeline: RequestPipeline.Handle
    /// The session's token store, when the configuration has ``APIClient/Configuration/session``.
    let tokens: TokenStore.Handle?
    /// The response cache, when the configuration has ``APIClient/Configuration/caching``.
    let cache: Cache.Handle?
    /// The connectivity monitor, offline queue and sync coordinator, when configured.
    let offline: OfflineComponents?
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
        let pipelineConfiguration = configuration.pipeline(tokens: tokens)
        let (pipeline, pipelineChild) = RequestPipeline.child(pipelineConfiguration, events: requestEvents)
        let cacheMailbox = Mailbox<Cache.Message>(name: "Cache")
        let cache = configuration.caching.map { caching in
            Cache.Handle(
                mailbox: cacheMailbox,
                shelf: Locked(CacheShelf(storage: CacheStorage(maxEntries: caching.maxEntries, maxBytes: caching.maxBytes))),
                clock: clock, defaultPolicy: caching.policy, defaultTTL: caching.ttl)
        }
        let offline = OfflineComponents(configuration)
        let chain = RequestChain(
            pipeline: pipeline, cache: cache, offline: offline,
            authentication: configuration.requestInterceptors.lazy.compactMap { $0 as? AuthInterceptor }.first ?? pipelineConfiguration.auth,
            tokens: tokens)
        (self.chain, self.pipeline, self.tokens, self.cache, self.offline) = (chain, pipeline, tokens, cache, offline)

        // The supervision order.
        var children: [ChildSpec] = []
        // The token store: the pipeline's auth step reads its credential; its refresh call goes
        // through the pipeline's execution without an admission slot.
        if let session = configuration.session, let tokens {
            let environment = TokenStore.Environment(
                mailbox: tokenMailbox, credential: tokens.credential, events: tokenEvents, persistence: session.persistence,
                refresh: APIClient.refreshCall(session, base: base, pipeline: pipeline, json: configuration.json, clock: clock),
                threshold: session.refreshThreshold, maxRefreshes: session.maxRefreshes, refreshWindow: session.refreshWindow,
                clock: clock)
            children.append(.component(mailbox: tokenMailbox) { TokenStore(environment, scope: $0) })
        }
        // The request pipeline: admission and the attempts.
        children.append(pipelineChild)
        // The cache: its misses are fetched through the pipeline's admission.
        if let caching = configuration.caching, let cache {
            var environment = Cache.Environment(
                mailbox: cacheMailbox,
                fetch: { request, options, reply in pipeline.submit(request, options: options, reply: reply) },
                fetchFailure: { pipeline.failure($0) },
                cancelFetch: { pipeline.cancel($0) },
                maxEntries: caching.maxEntries, maxBytes: caching.maxBytes,
                defaultTTL: Int(caching.defaultTTL.inSeconds.rounded(.down)), clock: clock, shelf: cache.shelf)
            environment.fault = caching.fault
            environment.events = cacheEvents
            environment.persistence = caching.storageFile.map { (path: $0.path, maxBytes: caching.storageMaxBytes) }
            children.append(.component(mailbox: cacheMailbox) { [environment] in Cache(environment) })
        }
        if let offline {
            children += Self.connectivityChildren(offline, configuration)
            children += Self.offlineChildren(
                offline, configuration, replay: { request, item in await chain.replay(request, as: item) },
                identity: { await chain.sessionIdentity() })
        }
        self.children = children
    }

    /// The connectivity monitor and the sources that feed it: the OS's link watcher and the
    /// probe, when configured.
    private static func connectivityChildren(_ offline: OfflineComponents, _ configuration: APIClient.Configuration) -> [ChildSpec] {
        let settings = configuration.connectivity ?? .init()
        let monitor = offline.monitor
        let environment = NetworkMonitor.Environment(
            mailbox: monitor, current: offline.connectivity, observed: offline.observed, events: offline.connectivityEvents,
            debounce: settings.debounce, clock: configuration.clock)
        var children: [ChildSpec] = [.component(mailbox: monitor) { NetworkMonitor(environment, scope: $0) }]
        if settings.watchesLink {
            children.append(ChildSpec(name: "LinkWatcher", restart: .transient) {
                await OfflineComponents.watchLink { up in try? monitor.send(.observe(up ? .online : .offline, .link)) }
            })
        }
        if let url = settings.probeURL {
            let probe = ConnectivityProbe(
                url: url, timeout: settings.probeTimeout,
                schedule: ProbeSchedule(interval: settings.probeInterval, retryDelay: settings.probeRetryDelay),
                transport: configuration.transport, clock: configuration.clock, monitor: monitor)
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
        let queueEnvironment = OfflineQueue.Environment(
            path: settings.storageFile?.path ?? ":memory:", limits: settings.limits, clock: clock, events: offline.offlineEvents,
            waiting: queue.waiting, loaded: queue.loaded, storage: settings.storage)
        let coordinatorEnvironment = SyncCoordinator.Environment(
            mailbox: coordinator, queue: queue, send: replay, identity: identity, resolver: settings.conflicts, connectivity: offline.connectivity,
            progress: offline.syncProgress, running: offline.running, fault: settings.coordinatorFault)
        let (events, current, interval) = (offline.connectivityEvents, offline.connectivity, settings.drainInterval)
        let (queueMailbox, loaded) = (queue.mailbox, queue.loaded)
        return [
            // Closed for good (shutdown, or the supervisor gave up) before its store was ever
            // opened, the queue will not open it now: whoever waits for that open goes on (the
            // count reads 0, and asks fail `componentUnavailable`).
            .component(mailbox: queue.mailbox, closed: { loaded.open() }) {
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
        ]
    }
}
