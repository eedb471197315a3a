/// Combines connectivity observations into one debounced state: a pure value, tested without
/// sockets or clocks (the monitor owns the timer it asks for).
///
/// Combination: the OS reporting no usable link means offline, whatever else says; otherwise
/// the latest observation of reachability (probe, request outcomes, manual) decides, and a link
/// that comes back counts as online until something says otherwise. The first known state is
/// published at once; after that a change is published only once it has held for `debounce`
/// (a flapping link starts one drain, not one per flap).
struct ConnectivityMachine: Sendable {
    /// What the monitor does after an observation.
    enum Action: Equatable, Sendable {
        /// Nothing changes.
        case none
        /// Publish this state now.
        case publish(ConnectivityState, ConnectivitySource)
        /// Call ``settle(generation:)`` with this generation after the delay (cancelling any
        /// earlier timer).
        case settleAfter(Duration, generation: Int)
        /// Cancel the pending timer: the state went back to the published one.
        case cancelTimer
    }

    let debounce: Duration
    /// The state last published.
    private(set) var published: ConnectivityState
    private var link: Bool?
    private var reachable: ConnectivityState = .unknown
    private var lastSource: ConnectivitySource = .manual
    /// The state a running timer is waiting to confirm, if any.
    private var pending: ConnectivityState?
    private var generation = 0

    init(debounce: Duration, published: ConnectivityState = .unknown) {
        self.debounce = debounce
        self.published = published
    }

    /// The state the observations so far add up to.
    var combined: ConnectivityState {
        if link == false { return .offline }
        if reachable != .unknown { return reachable }
        return link == true ? .online : .unknown
    }

    /// Takes one observation from `source`: `reachable` for the probe, request outcomes and the
    /// link; the manual source may also say `unknown`.
    mutating func observe(_ state: ConnectivityState, from source: ConnectivitySource) -> Action {
        switch source {
        case .link:
            if state == .online, link != true { reachable = .unknown }   // a link back up: try the network
            link = state == .unknown ? nil : state == .online
        case .probe, .requests, .manual:
            reachable = state
        }
        lastSource = source
        let target = combined
        if target == published {
            defer { pending = nil }
            return pending == nil ? .none : .cancelTimer
        }
        if published == .unknown || debounce <= .zero {
            published = target
            pending = nil
            return .publish(target, source)
        }
        if pending == target { return .none }   // the running timer already waits for this
        pending = target
        generation += 1
        return .settleAfter(debounce, generation: generation)
    }

    /// The debounce timer of `generation` fired: the state to publish, if it still holds.
    mutating func settle(generation: Int) -> (ConnectivityState, ConnectivitySource)? {
        guard generation == self.generation, let pending, pending == combined, pending != published else { return nil }
        self.pending = nil
        published = pending
        return (pending, lastSource)
    }
}
