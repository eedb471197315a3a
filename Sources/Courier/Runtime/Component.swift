/// A Courier component: an actor that owns some state and changes it only in response to
/// the messages of its mailbox.
///
/// The runtime calls ``handle(_:)`` for each message in arrival order. An error thrown out of
/// `handle` means the component has failed: the supervisor discards the instance and, under its
/// restart policy, makes a fresh one that continues with the next message of the same mailbox.
/// A message whose handler is slow (transport, disk, a peer's answer) must hand that work to a
/// child task and let its result come back as a message, so one slow message never blocks the
/// rest.
package protocol Component: Actor {
    /// The messages this component understands: its whole API.
    associatedtype Message: Sendable

    /// Handles one message. Throwing means the component has failed and must be restarted.
    func handle(_ message: consuming Message) async throws

    /// Called after the messages taken together in one batch were handled (and before the
    /// instance stops at a stop marker), so that a component can finish their work together:
    /// the offline queue commits every write of the batch in one transaction (group commit).
    /// Throwing means the component has failed. The default does nothing.
    func batchHandled() async throws
}

extension Component {
    package func batchHandled() async throws {}

    /// Consumes `mailbox` until it is closed or a stop marker for `incarnation` arrives.
    /// Runs on the actor (the iterator too), so each message costs no extra hop. Messages are
    /// taken in batches; what this instance took but did not handle (it failed, or was told to
    /// stop) goes back to the front of the mailbox with the iterator, for the next instance.
    /// A task of the instance's `scope` that failed fails the instance at the end of the
    /// batch (or at the stop marker that wakes an idle loop for it), as a handler would.
    func run(_ mailbox: Mailbox<Message>, incarnation: Int, scope: SupervisedScope? = nil) async throws {
        for await envelope in mailbox {
            switch consume envelope {
            case .message(let message):
                try await handle(consume message)
            case .endOfBatch:
                try scope?.checkFailure()
                try await batchHandled()
            case .stop(let target):
                if target == incarnation {
                    try scope?.checkFailure()
                    try await batchHandled()
                    return
                }
            }
        }
        try scope?.checkFailure()
    }
}
