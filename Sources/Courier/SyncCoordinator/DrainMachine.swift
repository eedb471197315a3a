/// When the sync coordinator drains the offline queue: a pure value, tested without I/O.
///
/// One drain at a time. A drain starts when connectivity comes back (a settled change to
/// online), on `syncNow` (even while the monitor says offline: the app asked), and on the
/// periodic tick while items wait and the monitor does not say offline. A request that arrives
/// during a drain runs one more drain after it, not a second one beside it. Connectivity going
/// offline stops the running drain.
struct DrainMachine: Sendable, Equatable {
    /// Whether a drain runs.
    enum Phase: Equatable, Sendable {
        case idle
        case draining(generation: Int)
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
    /// Another drain was asked for while one ran.
    private var again = false
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
            again = false
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

    /// The app asked for a drain (`forced`), or the periodic tick came (`hasWaiting`: items wait).
    mutating func requested(forced: Bool, hasWaiting: Bool) -> Action {
        guard forced || (hasWaiting && connectivity != .offline) else { return .none }
        if case .draining = phase {
            again = true
            return .none
        }
        return start(forced: forced)
    }

    /// The drain of `generation` ended.
    mutating func finished(generation finished: Int) -> Action {
        guard phase == .draining(generation: finished) else { return .none }
        phase = .idle
        defer { again = false }
        return again && connectivity != .offline ? start(forced: false) : .none
    }

    private mutating func start(forced: Bool) -> Action {
        generation += 1
        phase = .draining(generation: generation)
        return .start(generation: generation, forced: forced)
    }
}
