/// A request admitted but waiting for a slot: answered through `reply` when one frees, or
/// `timeout` at its deadline.
struct WaitingRequest: Sendable {
    let id: RequestID
    /// When it must be over, on the pipeline's clock.
    let deadline: Duration
    /// Its work, which the pipeline stops if it stops while the request runs.
    let call: RunningCall
    let reply: Reply<Void>
    /// Where it waits among the others, and what is shed first.
    var priority: RequestPriority = .default
    /// Its lane: its origin under an adaptive limit, `nil` in the shared fixed lane.
    var lane: HTTPOrigin? = nil
}
