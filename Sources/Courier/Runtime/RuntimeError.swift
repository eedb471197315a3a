/// Errors raised by the runtime itself (mailboxes, replies, the supervisor). The runtime knows
/// nothing of HTTP: whoever exposes components to users maps these to their own error model
/// (``APIClient`` maps them to ``NetworkError`` in one place).
package enum RuntimeError: Error, Sendable, Equatable {
    /// The component is stopped and will not come back (its mailbox is closed: shut down, or
    /// its supervisor gave up restarting it).
    case componentUnavailable(String)
    /// The component failed while holding this ask's reply and is being restarted; the work may
    /// or may not have had an effect.
    case componentRestarted(String)
    /// A reply handle was released without an answer. ``Mailbox/ask(_:)`` turns it into
    /// ``componentRestarted(_:)`` or ``componentUnavailable(_:)``; askers never see it.
    case replyDropped
}
