/// A request admitted but waiting for a slot: answered through `reply` when one frees, or
/// `timeout` at its deadline.
struct WaitingRequest: Sendable {
    let id: RequestID
    /// When it must be over, on the pipeline's clock.
    let deadline: Duration
    /// Its work, which the pipeline stops if it stops while the request runs.
    let call: RunningCall
    let reply: Reply<Void>
}
