/// A component's mailbox: an `AsyncStream` of typed messages, owned by whoever wires the
/// components (the supervisor), not by the component.
///
/// Because the stream outlives any one instance of the component, a restarted component
/// keeps consuming the same stream: messages sent while it was failing or restarting wait in
/// the buffer and are handled by the next instance. Closing the mailbox (at shutdown, or when
/// the supervisor gives up) is final: later sends fail with
/// ``RuntimeError/componentUnavailable(_:)``, and every ask still queued is answered with it.
package final class Mailbox<Message: Sendable>: Sendable {
    /// The name of the component this mailbox feeds; it appears in errors and events.
    package let name: String

    let stream: AsyncStream<Envelope>
    private let input: AsyncStream<Envelope>.Continuation
    private let closed = Locked(false)

    /// Creates an open, empty, unbounded mailbox. Bound the load in front of it (the request
    /// pipeline has admission control), not by dropping messages here.
    package init(name: String) {
        self.name = name
        (stream, input) = AsyncStream.makeStream(of: Envelope.self, bufferingPolicy: .unbounded)
    }

    /// Sends a message without waiting for an answer ("tell").
    /// - Throws: ``RuntimeError/componentUnavailable(_:)`` if the mailbox is closed.
    package func send(_ message: Message) throws(RuntimeError) {
        guard deliver(.message(message)) else { throw .componentUnavailable(name) }
    }

    /// Sends a message that carries a reply handle and waits for the answer ("ask").
    ///
    /// - Parameter makeMessage: builds the message around the reply handle.
    /// - Throws: whatever the component answers with; ``RuntimeError/componentRestarted(_:)``
    ///   if the component failed while holding the handle;
    ///   ``RuntimeError/componentUnavailable(_:)`` if the mailbox is or becomes closed.
    package func ask<Value: Sendable>(_ makeMessage: (Reply<Value>) -> Message) async throws -> Value {
        do {
            return try await withCheckedThrowingContinuation { continuation in
                // If the mailbox is closed the envelope is dropped here, and with it the
                // handle, which answers `replyDropped`.
                _ = deliver(.message(makeMessage(Reply(continuation))))
            }
        } catch RuntimeError.replyDropped {
            throw isClosed ? RuntimeError.componentUnavailable(name) : RuntimeError.componentRestarted(name)
        }
    }

    /// An ask that the asker can abandon: if the calling task is cancelled, `cancelMessage` is
    /// queued, so the component can stop the work, and then the asker is answered
    /// `cancelledError` at once (the component's own later answer is ignored). Whatever the asker
    /// sends next arrives after `cancelMessage`.
    package func ask<Value: Sendable>(
        _ makeMessage: (Reply<Value>) -> Message, onCancel cancelMessage: Message, cancelledError: any Error
    ) async throws -> Value {
        let pending = Locked(PendingReply<Value>())
        return try await withTaskCancellationHandler {
            try await ask { reply in
                pending.withLock { $0.reply = reply }
                // Cancelled before the handler could see the reply: answer now; the component
                // finds the reply answered and skips the work.
                if Task.isCancelled { reply.fail(cancelledError) }
                return makeMessage(reply)
            }
        } onCancel: {
            // The cancel message is queued before the asker wakes, so whatever the asker sends
            // next reaches the component after it.
            let reply = pending.withLock { $0.reply }
            reply?.fail(cancelledError) { _ = deliver(.message(cancelMessage)) }
        }
    }

    /// Whether the mailbox has been closed for good.
    package var isClosed: Bool { closed.withLock { $0 } }

    /// Closes the mailbox: no new message is accepted; those already queued stay readable
    /// until the consumer drains them or ``discardQueued()`` drops them.
    func close() {
        closed.withLock { $0 = true }
        input.finish()
    }

    /// Drops every queued message of a closed mailbox, so that their askers are answered
    /// with ``RuntimeError/componentUnavailable(_:)``. Call only when no consumer is running.
    func discardQueued() async {
        precondition(isClosed, "discardQueued() on an open mailbox")
        for await _ in stream {}
    }

    /// Asks the running instance `incarnation` to stop after the messages queued before this
    /// point. Used by the supervisor to stop a sibling without closing its mailbox.
    func requestStop(incarnation: Int) {
        _ = deliver(.stop(incarnation: incarnation))
    }

    private func deliver(_ envelope: Envelope) -> Bool {
        switch input.yield(envelope) {
        case .enqueued: return true
        case .dropped, .terminated:
            closed.withLock { $0 = true }
            return false
        @unknown default: return false
        }
    }

    /// The reply of a cancellable ask, held weakly so that a component dropping it still answers
    /// the asker (from the reply's deinit).
    private struct PendingReply<Value: Sendable> {
        weak var reply: Reply<Value>?
    }

    /// What travels through a mailbox: a component's message, or a supervisor's stop marker.
    enum Envelope: Sendable {
        case message(Message)
        /// Stop the instance with this incarnation number; later instances ignore it.
        case stop(incarnation: Int)
    }
}
