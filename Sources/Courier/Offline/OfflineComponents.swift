import Foundation

/// What one client holds of its connectivity monitor, offline queue and sync coordinator: their
/// mailboxes, the values they publish (read without a message), and their event streams.
/// ``ClientComponents`` wires them and their feeder tasks (probe, link watcher, connectivity
/// forwarding, periodic tick).
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
    /// The coordinator's drain in flight, if any.
    let running: Locked<DrainSlot>

    /// The mailboxes and shared values of a monitor, and with `hasQueue` of an offline queue
    /// (`sharedQueue`: a ``SharedOfflineQueue``) and its coordinator. ``ClientComponents``
    /// makes their children.
    init(learnsFromRequests: Bool, hasQueue: Bool, sharedQueue: Bool = false) {
        monitor = Mailbox(name: "NetworkMonitor")
        connectivity = LatestValue(.unknown)
        observed = LatestValue(.unknown)
        self.learnsFromRequests = learnsFromRequests
        if hasQueue {
            let mailbox = Mailbox<OfflineQueue.Message>(name: "OfflineQueue")
            // The first message: the store opens as soon as the queue starts, not at the first call.
            try? mailbox.send(.open)
            queue = OfflineQueue.Handle(mailbox: mailbox, waiting: LatestValue(0), ordersByKey: sharedQueue)
            coordinator = Mailbox(name: "SyncCoordinator")
        } else {
            (queue, coordinator) = (nil, nil)
        }
        running = Locked(DrainSlot())
    }

    /// Tells the monitor what a request's outcome says about connectivity, when it learns from
    /// requests: the operating system saying the device is offline (`noConnection`) says
    /// offline; any response says online, sent only when the monitor does not already say so
    /// (published, and with no change pending), so the hot path of an online client sends
    /// nothing. A server that cannot be reached (`cannotConnect`: refused, not found,
    /// unreachable) or a connection lost says nothing: one upstream down must not take the
    /// whole client offline (the probe and the OS link say that). A name not resolved or a
    /// network unreachable, which an outage also causes, makes the monitor probe now (when
    /// it has a probe and does not already say offline): on Linux without netlink that is the
    /// only way a request teaches the monitor that the device went offline.
    func learn(from result: Result<HTTPResponse, NetworkError>) {
        guard learnsFromRequests else { return }
        switch result {
        case .failure(.noConnection):
            try? monitor.send(.observe(.offline, .requests))
        case .failure(.cannotConnect(_, _, .hostNotFound, _)), .failure(.cannotConnect(_, _, .unreachable, _)):
            if observed.value != .offline { try? monitor.send(.suspect) }
        case .success, .failure(.conflict), .failure(.serverError), .failure(.notFound), .failure(.forbidden),
             .failure(.unauthorized(.some)), .failure(.notModified):
            if connectivity.value != .online || observed.value != .online { try? monitor.send(.observe(.online, .requests)) }
        default:
            break
        }
    }

    /// Returns at once unless the monitor says offline; else once it says otherwise (or the task
    /// is cancelled). GraphQL's sockets wait here instead of burning reconnection attempts.
    func untilOnline() async {
        guard connectivity.value == .offline else { return }
        let changes = connectivityEvents.subscribe()
        guard connectivity.value == .offline else { return }
        for await change in changes where change.state != .offline { return }
    }

    /// Stores a write in the offline queue and tells the coordinator (which drains it unless the
    /// monitor says offline). A request with its own `Authorization` is refused: that header is
    /// never stored, so its replay could not be authenticated.
    func enqueue(_ write: OfflineWrite) async throws(NetworkError) -> Int64 {
        guard let queue else { throw .componentUnavailable("OfflineQueue") }
        if write.request.headers.contains("Authorization") {
            throw .invalidRequest("a request with its own Authorization header cannot be queued (it is never stored)")
        }
        if write.request.bodyStream != nil {
            throw .invalidRequest("a request with a body stream cannot be queued (only a body in memory is stored)")
        }
        let id = try await queue.enqueue(write)
        try? coordinator?.send(.itemsAdded)
        return id
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

    /// Ends every event stream (at shutdown). (Whoever still waits for the queue's first open
    /// was released when its mailbox closed: `ClientComponents`' `closed` hook.)
    func finishEvents() {
        connectivityEvents.finish()
        offlineEvents.finish()
        syncProgress.finish()
    }

    /// Runs the OS's link watcher until cancelled, reporting each change; returns at once where
    /// there is none (the link source is then ignored).
    static func watchLink(_ report: @escaping @Sendable (Bool) -> Void) async {
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
