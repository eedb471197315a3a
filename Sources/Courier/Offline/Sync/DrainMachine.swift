/// When the sync coordinator drains the offline queue: a pure value, tested without I/O.
///
/// One drain at a time. A drain starts when connectivity comes back (a settled change to
/// online), on `syncNow` (even while the monitor says offline: the app asked), when items are
/// added while the monitor does not say offline, and on the periodic tick while items wait.
/// A tick while the monitor says offline still drains (forced): its first replay is a probe,
/// so a monitor that learnt "offline" from a failed request and has no other source to tell it
/// otherwise cannot hold writes back for ever. A request that arrives during a drain runs one
/// more drain after it, not a second one beside it. Connectivity going offline stops the
/// running drain.
struct DrainMachine: Sendable, Equatable {
    /// Whether a drain runs.
    enum Phase: Equatable, Sendable {
        case idle
        case draining(generation: Int)
    }

    /// Who asks for a drain.
    enum Trigger: Equatable, Sendable {
        /// The app (`syncNow`): drain now, whatever the monitor says.
        case app
        /// Items were added (or queued again): drain unless the monitor says offline.
        case newItems
        /// The periodic timer: drain while items wait, as a probe while the monitor says offline.
        case timer
    }

    /// What the coordinator does.
    enum Action: Equatable, Sendable {
        case none
        /// Start a drain with this generation (`forced`: keep going while the monitor says offline).
        case start(generation: Int, forced: Bool)
        /// Stop the drain of this generation.
        case stop(generation: Int)
    }

    private(set) var phase: Phase = .idle
    private(set) var connectivity: ConnectivityState
    /// Another drain was asked for while one ran (`forced`: by the app).
    private var again = false
    private var againForced = false
    private var generation = 0

    init(connectivity: ConnectivityState = .unknown) {
        self.connectivity = connectivity
    }

    /// The monitor published `state`.
    mutating func connectivityChanged(_ state: ConnectivityState) -> Action {
        let previous = connectivity
        connectivity = state
        switch (state, phase) {
        case (.offline, .draining(let generation)):
            again = againForced
            return .stop(generation: generation)
        case (.online, .idle) where previous != .online:
            return start(forced: false)
        case (.online, .draining) where previous != .online:
            again = true
            return .none
        default:
            return .none
        }
    }

    /// `trigger` asks for a drain; `hasWaiting`: items wait to be replayed.
    mutating func requested(by trigger: Trigger, hasWaiting: Bool) -> Action {
        switch trigger {
        case .app: break
        case .newItems: guard hasWaiting, connectivity != .offline else { return .none }
        case .timer: guard hasWaiting else { return .none }
        }
        if case .draining = phase {
            again = true
            againForced = againForced || trigger == .app
            return .none
        }
        return start(forced: trigger == .app || connectivity == .offline)
    }

    /// The drain of `generation` ended.
    mutating func finished(generation finished: Int) -> Action {
        guard phase == .draining(generation: finished) else { return .none }
        phase = .idle
        defer { (again, againForced) = (false, false) }
        if againForced { return start(forced: true) }
        return again && connectivity != .offline ? start(forced: false) : .none
    }

    private mutating func start(forced: Bool) -> Action {
        generation += 1
        phase = .draining(generation: generation)
        return .start(generation: generation, forced: forced)
    }
}
