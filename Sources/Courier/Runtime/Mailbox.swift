/// A component's mailbox: an async sequence of typed messages, owned by whoever wires the
/// components (the supervisor), not by the component. A component's loop is
/// `for await envelope in mailbox` (``Component/run(_:incarnation:scope:)``).
///
/// Because the mailbox outlives any one instance of the component, a restarted component
/// keeps consuming it: messages sent while it was failing or restarting wait in the buffer
/// and are handled by the next instance. Closing the mailbox (at shutdown, or when the
/// supervisor gives up) is final: later sends fail with
/// ``RuntimeError/componentUnavailable(_:)``, and every ask still queued is answered with it.
/// It is a lock, an array and at most one stored continuation (the consumer's), not an
/// `AsyncStream`, whose messages cost far more (most of it generic-metadata lookups; figures in
/// Benchmarks/RESULTS.md). The consumer's iterator takes every queued
/// message at once (one lock round trip per batch), and cancelling the consumer's task ends
/// only that wait, never the mailbox.
package final class Mailbox<Message: Sendable>: Sendable {
    /// The name of the component this mailbox feeds; it appears in errors and events.
    package let name: String

    private let state = Locked(State())

    private struct State {
        /// Messages not yet taken by a consumer, oldest first. The consumer swaps its drained
        /// batch in for it, so both arrays keep their capacity instead of growing again from
        /// empty for every batch.
        var queued: [Envelope] = []
        /// The consumer waiting for a message, if it is waiting: resumed with `true` when one is
        /// queued, `false` to end its wait (closed, or its task cancelled).
        var waiter: UnsafeContinuation<Bool, Never>?
        var closed = false
    }

    /// Creates an open, empty, unbounded mailbox. Bound the load in front of it (the request
    /// pipeline has admission control), not by dropping messages here.
    package init(name: String) {
        self.name = name
    }

    /// Sends a message without waiting for an answer ("tell").
    /// - Throws: ``RuntimeError/componentUnavailable(_:)`` if the mailbox is closed.
    package func send(_ message: consuming Message) throws(RuntimeError) {
        guard deliver(.message(message)) else { throw .componentUnavailable(name) }
    }

    /// Sends a message that carries a reply handle and waits for the answer ("ask").
    ///
    /// - Parameter makeMessage: builds the message around the reply handle.
    /// - Throws: whatever the component answers with; ``RuntimeError/componentRestarted(_:)``
    ///   if the component failed while holding the handle;
    ///   ``RuntimeError/componentUnavailable(_:)`` if the mailbox is or becomes closed.
    package nonisolated(nonsending) func ask<Value: Sendable>(_ makeMessage: (Reply<Value>) -> Message) async throws -> Value {
        try await ask(makeMessage, through: Reply<Value>.Slot(nil), cancelledError: Never?.none)
    }

    /// An ask that the asker can abandon: if the calling task is cancelled, `cancelMessage` is
    /// queued, so the component can stop the work, and then the asker is answered
    /// `cancelledError` at once (the component's own later answer is ignored). Whatever the asker
    /// sends next arrives after `cancelMessage`. (`cancelledError` is generic, not `any Error`,
    /// so that it is boxed only when it is thrown, not built on every ask.)
    package nonisolated(nonsending) func ask<Value: Sendable, Failure: Error>(
        _ makeMessage: (Reply<Value>) -> Message, onCancel cancelMessage: Message, cancelledError: Failure
    ) async throws -> Value {
        // The asker's side holds the reply's slot, not the reply, so a component that drops the
        // reply still answers the asker (from the reply's deinit).
        let slot = Reply<Value>.Slot(nil)
        return try await withTaskCancellationHandler {
            try await ask(makeMessage, through: slot, cancelledError: cancelledError)
        } onCancel: {
            // The cancel message is queued before the asker wakes, so whatever the asker sends
            // next reaches the component after it.
            Reply.fail(slot, cancelledError) { _ = deliver(.message(cancelMessage)) }
        }
    }

    /// Both asks: the asker waits in `slot`; a `cancelledError` means the ask is cancellable.
    private nonisolated(nonsending) func ask<Value: Sendable, Failure: Error>(
        _ makeMessage: (Reply<Value>) -> Message, through slot: Reply<Value>.Slot, cancelledError: Failure?
    ) async throws -> Value {
        do {
            return try await withUnsafeThrowingContinuation { continuation in
                slot.withLock { $0 = .task(continuation) }
                let reply = Reply(slot: slot)
                // Cancelled before the cancellation handler could find the continuation: answer
                // now; the component finds the reply answered and skips the work.
                if let cancelledError, Task.isCancelled { reply.fail(cancelledError) }
                // If the mailbox is closed the envelope is dropped (by `deliver`, after its lock),
                // and with it the handle, which answers `replyDropped`.
                _ = deliver(.message(makeMessage(reply)))
            }
        } catch {
            throw answerError(error)
        }
    }

    /// What an asker is told for `error`: a reply released unanswered becomes
    /// ``RuntimeError/componentUnavailable(_:)`` once the mailbox is closed,
    /// ``RuntimeError/componentRestarted(_:)`` before; anything else as it is.
    package func answerError(_ error: any Error) -> any Error {
        guard case RuntimeError.replyDropped = error else { return error }
        return isClosed ? RuntimeError.componentUnavailable(name) : RuntimeError.componentRestarted(name)
    }

    /// Whether the mailbox has been closed for good.
    package var isClosed: Bool { state.withLock { $0.closed } }

    /// Closes the mailbox: no new message is accepted; those already queued stay readable
    /// until the consumer drains them or ``discardQueued()`` drops them. A waiting consumer
    /// sees the end.
    func close() {
        let waiter = state.withLock { state -> UnsafeContinuation<Bool, Never>? in
            state.closed = true
            return state.waiter.take()
        }
        waiter?.resume(returning: false)
    }

    /// Drops every queued message of a closed mailbox, so that their askers are answered
    /// with ``RuntimeError/componentUnavailable(_:)``. Call only when no consumer is running.
    func discardQueued() async {
        precondition(isClosed, "discardQueued() on an open mailbox")
        let dropped = state.withLock { state in
            defer { state.queued = [] }
            return state.queued
        }
        _ = consume dropped   // released here, outside the lock: their replies answer the askers
    }

    /// Asks the running instance `incarnation` to stop after the messages queued before this
    /// point. Used by the supervisor to stop a sibling without closing its mailbox.
    func requestStop(incarnation: Int) {
        _ = deliver(.stop(incarnation: incarnation))
    }

    /// Queues `envelope` and wakes a waiting consumer; `false` if closed (the envelope is then
    /// dropped, after the lock, and a reply in it answers its asker).
    private func deliver(_ envelope: consuming Envelope) -> Bool {
        // Queued even when the consumer waits: it takes the message under the lock, after this
        // unlock, so everything the sender wrote before sending is ordered before the consumer
        // reads it by the lock, which ThreadSanitizer sees. (Handed over in the continuation,
        // it was ordered only by the runtime's atomics, which it does not see: a report about
        // a reply's fields, about once in ten sanitized runs.)
        // Moved into the queue, not copied; refused, it comes back out and is released here.
        let (refused, waiter) = state.withLock(passing: envelope) { (state, envelope: consuming Envelope) -> (Envelope?, UnsafeContinuation<Bool, Never>?) in
            guard !state.closed else { return (envelope, nil) }
            state.queued.append(envelope)
            return (nil, state.waiter.take())
        }
        waiter?.resume(returning: true)
        return refused == nil
    }

    /// Puts back, at the front, messages a consumer took but did not handle (it failed, or
    /// was asked to stop), so the next instance handles them first and in order. Called by the
    /// consumer's iterator as it is released, so no consumer waits meanwhile (one at a time).
    private func putBack(_ envelopes: ArraySlice<Envelope>) {
        guard !envelopes.isEmpty else { return }
        state.withLock { $0.queued.insert(contentsOf: envelopes, at: 0) }
    }

    /// What a mailbox's consumer receives: a component's message, a supervisor's stop marker,
    /// or the iterator's mark that a batch ended.
    package enum Envelope: Sendable {
        case message(Message)
        /// Stop the instance with this incarnation number; later instances ignore it.
        case stop(incarnation: Int)
        /// Made by the iterator, never sent: every message taken in one batch has been
        /// received, so the consumer may finish their work together
        /// (``Component/batchHandled()``).
        case endOfBatch

        /// Moves this envelope out, leaving ``endOfBatch`` (nothing to release) in its place: the
        /// iterator hands each message of a batch over once, instead of copying it and releasing
        /// the batch's copy later.
        mutating func take() -> Envelope {
            var taken = Envelope.endOfBatch
            swap(&self, &taken)
            return taken
        }
    }
}

extension Mailbox: AsyncSequence {
    package typealias Element = Envelope
    package typealias Failure = Never

    /// A consumer's iterator. One consumer at a time: a restarted component makes a new one.
    package func makeAsyncIterator() -> Iterator {
        Iterator(self)
    }

    /// Takes every queued message at once (one lock round trip per batch) and yields them one
    /// by one, oldest first, then ``Envelope/endOfBatch``; waits when none is queued. Ends
    /// (`nil`) once the mailbox is closed and drained, or when the consuming task is cancelled
    /// while it waits (which ends that wait only: the mailbox stays as it is).
    ///
    /// What it took but did not yield goes back to the front of the mailbox when the iterator
    /// is released (its consumer failed, or met its stop marker), so the next consumer receives
    /// it first and in order. A class for that: its `deinit` is where the batch goes back.
    package final class Iterator: AsyncIteratorProtocol {
        private let mailbox: Mailbox
        /// The batch taken; `position` is the next one to yield. One consumer task uses the
        /// iterator at a time.
        private var batch: [Envelope] = []
        private var position = 0
        /// Whether messages were yielded since the last ``Envelope/endOfBatch``.
        private var inBatch = false

        fileprivate init(_ mailbox: Mailbox) {
            self.mailbox = mailbox
        }

        package func next() async -> Envelope? {
            await next(isolation: nil)
        }

        /// Runs on the consumer's actor: no hop off it and back for each batch (where a `for
        /// await` loop calls this: Linux, and Apple platforms from macOS 15 and iOS 18; before
        /// them the loop calls `next()`, which is as correct, one hop per message dearer).
        /// Inlined into the consumer's loop, so that a message of a batch already taken costs
        /// no async call.
        @inline(__always)
        package func next(isolation actor: isolated (any Actor)?) async -> Envelope? {
            if position < batch.count {
                defer { position += 1 }
                return batch[position].take()
            }
            return await nextBatch(isolation: actor)
        }

        /// The end of the batch, or the first message of the next one (taken or waited for).
        private func nextBatch(isolation actor: isolated (any Actor)?) async -> Envelope? {
            if inBatch {
                inBatch = false
                // The drained array goes back to the mailbox at the next take, capacity kept
                // (up to a bound, so one burst does not hold its memory for good).
                batch.removeAll(keepingCapacity: batch.capacity <= 1024)
                position = 0
                return .endOfBatch
            }
            var first = mailbox.state.withLock { takeQueued(&$0) }
            while first == nil {
                guard await waitForMessages(isolation: actor) else { return nil }
                first = mailbox.state.withLock { takeQueued(&$0) }
            }
            inBatch = true
            return first
        }

        /// Under the mailbox's lock: every queued message becomes the batch (and the drained
        /// batch array the queue), and the first is returned; `nil` if none is queued.
        private func takeQueued(_ state: inout State) -> Envelope? {
            guard !state.queued.isEmpty else { return nil }
            swap(&state.queued, &batch)
            position = 1
            return batch[0].take()
        }

        /// Waits until a message is queued (`true`), or the mailbox is closed or the task
        /// cancelled (`false`). The messages are then taken under the lock, where the sender put
        /// them.
        private func waitForMessages(isolation actor: isolated (any Actor)?) async -> Bool {
            let mailbox = self.mailbox
            return await withTaskCancellationHandler {
                await withUnsafeContinuation(isolation: actor) { (continuation: UnsafeContinuation<Bool, Never>) in
                    let now = mailbox.state.withLock { state -> Bool? in
                        if !state.queued.isEmpty { return true }
                        if state.closed || Task.isCancelled { return false }
                        precondition(state.waiter == nil, "a mailbox has one consumer at a time")
                        state.waiter = continuation
                        return nil
                    }
                    if let now { continuation.resume(returning: now) }
                }
            } onCancel: {
                mailbox.state.withLock { $0.waiter.take() }?.resume(returning: false)
            }
        }

        deinit {
            if position < batch.count { mailbox.putBack(batch[position...]) }
        }
    }
}
