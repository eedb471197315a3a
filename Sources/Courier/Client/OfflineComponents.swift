import Foundation

/// One client's connectivity monitor, offline queue and sync coordinator, wired together, with
/// the supervised tasks that feed them (probe, link watcher, connectivity forwarding, periodic
/// tick). Built by ``APIClient`` when its configuration has ``APIClient/Configuration/connectivity``
/// or ``APIClient/Configuration/offline``.
struct OfflineComponents: Sendable {
    let monitor: Mailbox<NetworkMonitor.Message>
    /// The monitor's published state, read without a message.
    let connectivity: LatestValue<ConnectivityState>
    /// What the monitor's observations add up to before debouncing (a change may be pending).
    let observed: LatestValue<ConnectivityState>
    let connectivityEvents = EventBroadcaster<ConnectivityEvent>()
    /// Whether request outcomes are reported to the monitor.
    let learnsFromRequests: Bool
    /// The queue and its coordinator, when the configuration has an offline queue.
    let queue: OfflineQueue.Handle?
    let coordinator: Mailbox<SyncCoordinator.Message>?
    let offlineEvents = EventBroadcaster<OfflineEvent>()
    let syncProgress = EventBroadcaster<SyncProgress>()
    /// The children to start, in order, after the request pipeline.
    let children: [ChildSpec]
    /// The coordinator's drain in flight, if any.
    private let running: Locked<DrainSlot>

    /// `send` replays a queued write through the request pipeline.
    init?(_ configuration: APIClient.Configuration, send: @escaping Drain.Send) {
        guard configuration.connectivity != nil || configuration.offline != nil else { return nil }
        let settings = configuration.connectivity ?? .init()
        let clock = configuration.clock
        let monitor = Mailbox<NetworkMonitor.Message>(name: "NetworkMonitor")
        let connectivity = LatestValue(ConnectivityState.unknown)
        let observed = LatestValue(ConnectivityState.unknown)
        self.monitor = monitor
        self.connectivity = connectivity
        self.observed = observed
        learnsFromRequests = settings.learnsFromRequests
        let monitorEnvironment = NetworkMonitor.Environment(
            mailbox: monitor, current: connectivity, observed: observed, events: connectivityEvents,
            debounce: settings.debounce, clock: clock)
        var children: [ChildSpec] = [.component(mailbox: monitor) { NetworkMonitor(monitorEnvironment) }]
        if settings.watchesLink {
            children.append(ChildSpec(name: "LinkWatcher", restart: .transient) {
                await Self.watchLink { up in try? monitor.send(.observe(up ? .online : .offline, .link)) }
            })
        }
        if let url = settings.probeURL {
            let probe = ConnectivityProbe(
                url: url, timeout: settings.probeTimeout,
                schedule: ProbeSchedule(interval: settings.probeInterval, retryDelay: settings.probeRetryDelay),
                transport: configuration.transport, clock: clock, monitor: monitor)
            children.append(ChildSpec(name: "ConnectivityProbe") { try await probe.run() })
        }
        guard let offline = configuration.offline else {
            (queue, coordinator, self.children, running) = (nil, nil, children, Locked(DrainSlot()))
            return
        }
        let queueMailbox = Mailbox<OfflineQueue.Message>(name: "OfflineQueue")
        let running = Locked(DrainSlot())
        let queue = OfflineQueue.Handle(mailbox: queueMailbox, waiting: LatestValue(0))
        let queueEnvironment = OfflineQueue.Environment(
            path: offline.storageFile?.path ?? ":memory:", limits: offline.limits, clock: clock, events: offlineEvents,
            waiting: queue.waiting, fault: offline.queueFault)
        let coordinator = Mailbox<SyncCoordinator.Message>(name: "SyncCoordinator")
        let learns = settings.learnsFromRequests
        let coordinatorEnvironment = SyncCoordinator.Environment(
            mailbox: coordinator, queue: queue,
            send: { request, requiresAuth in
                let result = await send(request, requiresAuth)
                if learns { Self.report(result, to: monitor, current: connectivity, observed: observed) }
                return result
            },
            resolver: offline.conflicts, connectivity: connectivity, progress: syncProgress, running: running,
            fault: offline.coordinatorFault)
        let (events, interval) = (connectivityEvents, offline.drainInterval)
        children += [
            .component(mailbox: queueMailbox) { OfflineQueue(queueEnvironment) },
            .component(mailbox: coordinator) { SyncCoordinator(coordinatorEnvironment) },
            ChildSpec(name: "ConnectivityForwarder", restart: .transient) {
                try await SyncCoordinator.forwardConnectivity(coordinator, events: events, current: connectivity)
            },
            ChildSpec(name: "SyncTimer") {
                while !Task.isCancelled {
                    do { try await clock.sleep(for: interval) } catch { return }
                    try coordinator.send(.tick)
                }
            },
        ]
        (self.queue, self.coordinator, self.children, self.running) = (queue, coordinator, children, running)
    }

    /// Tells the monitor what a request's outcome says about connectivity, when it has learning
    /// from requests on.
    func learn(from result: Result<HTTPResponse, NetworkError>) {
        if learnsFromRequests { Self.report(result, to: monitor, current: connectivity, observed: observed) }
    }

    /// A connection failure says offline; any response says online, sent only when the monitor
    /// does not already say so (published, and with no change pending), so the hot path of an
    /// online client sends nothing.
    static func report<Value>(
        _ result: Result<Value, NetworkError>, to monitor: Mailbox<NetworkMonitor.Message>,
        current: LatestValue<ConnectivityState>, observed: LatestValue<ConnectivityState>
    ) {
        switch result {
        case .failure(.noConnection):
            try? monitor.send(.observe(.offline, .requests))
        case .success, .failure(.conflict), .failure(.serverError), .failure(.notFound), .failure(.forbidden),
             .failure(.unauthorized(.some)), .failure(.notModified):
            if current.value != .online || observed.value != .online { try? monitor.send(.observe(.online, .requests)) }
        default:
            break
        }
    }

    /// Stores a write in the offline queue and tells the coordinator (which drains it unless the
    /// monitor says offline). A request with its own `Authorization` is refused: that header is
    /// never stored, so its replay could not be authenticated.
    func enqueue(_ request: HTTPRequest, requiresAuth: Bool) async throws(NetworkError) -> Int64 {
        guard let queue else { throw .componentUnavailable("OfflineQueue") }
        if request.headers.contains("Authorization") {
            throw .invalidRequest("a request with its own Authorization header cannot be queued (it is never stored)")
        }
        if request.bodyStream != nil {
            throw .invalidRequest("a request with a body stream cannot be queued (only a body in memory is stored)")
        }
        let id = try await queue.enqueue(request, requiresAuth: requiresAuth)
        try? coordinator?.send(.itemsAdded)
        return id
    }

    /// Opens the queue (which publishes how many stored writes wait) and asks for a drain, so
    /// writes stored by an earlier run go out without waiting for a new one.
    func resumeStoredWrites() async {
        guard let queue, (try? await queue.items()) != nil else { return }
        try? coordinator?.send(.itemsAdded)
    }

    /// Cancels the drain in flight, waits for it, and lets no other start (at shutdown, before
    /// the components stop).
    func stopDrain() async {
        let drain = running.withLock { slot in
            slot.closed = true
            return slot.task
        }
        drain?.cancel()
        await drain?.value
    }

    /// Ends every event stream (at shutdown).
    func finishEvents() {
        connectivityEvents.finish()
        offlineEvents.finish()
        syncProgress.finish()
    }

    /// Runs the OS's link watcher until cancelled, reporting each change; returns at once where
    /// there is none (the link source is then ignored).
    private static func watchLink(_ report: @escaping @Sendable (Bool) -> Void) async {
        #if canImport(Network)
        let watcher = PathWatcher()
        #else
        guard let watcher = LinkWatcher.open() else { return }
        #endif
        watcher.start(onChange: report)
        defer { watcher.close() }
        while !Task.isCancelled {
            do { try await Task.sleep(for: .seconds(3600)) } catch { return }
        }
    }
}
