extension RequestPipeline {
    /// What a caller holds to use a pipeline: its mailbox and the request numbering. Copies
    /// share the numbering, and every instance uses it, so an id a failed instance left is
    /// never another's.
    struct Handle: Sendable {
        let mailbox: Mailbox<Message>
        /// Where a finished call is left when no call waits for a slot.
        private let finished: FinishedCalls
        private let lastID = Locked<UInt64>(0)

        init(mailbox: Mailbox<Message>, finished: FinishedCalls) {
            self.mailbox = mailbox
            self.finished = finished
        }

        /// A new request identifier.
        func nextID() -> RequestID {
            RequestID(lastID.withLock { $0 += 1; return $0 })
        }

        /// Waits until the pipeline admits request `id` (a slot is free), then returns the call
        /// it holds, which the caller runs in its own task (``RunningCall/enter()``) and ends
        /// with ``finished(_:_:sample:)``. Cancelling the calling task while it waits leaves the queue.
        /// - Throws: `overloaded` when the queue is full, `timeout` when no slot freed before
        ///   `deadline`, `cancelled`, or the pipeline's unavailability.
        /// - Parameters:
        ///   - priority: where it waits, and what is shed first when the queue is full.
        ///   - origin: its lane when the pipeline has an adaptive limit per origin.
        nonisolated(nonsending) func admit(
            _ id: RequestID, deadline: Duration, priority: RequestPriority = .default, origin: HTTPOrigin? = nil
        ) async throws(NetworkError) -> RunningCall {
            let call = RunningCall()
            let admission = Admission(id: id, deadline: deadline, priority: priority, origin: origin)
            do {
                try await mailbox.ask({ .admit(admission, call, $0) }, onCancel: .cancel(id), cancelledError: NetworkError.cancelled)
            } catch {
                throw NetworkError(answer: error)
            }
            return call
        }

        /// Admits hedge `id` of a call to `origin` only if a slot is free now and the retry
        /// budget has a permit (the hedge then takes both); returns the call it holds, which
        /// the caller runs and ends as an admitted one's, or `nil`: no hedge.
        nonisolated(nonsending) func admitHedge(
            _ id: RequestID, deadline: Duration, priority: RequestPriority, origin: HTTPOrigin
        ) async -> RunningCall? {
            let call = RunningCall()
            let admission = Admission(id: id, deadline: deadline, priority: priority, origin: origin)
            return (try? await mailbox.ask { .admitHedge(admission, call, $0) }) == true ? call : nil
        }

        /// Frees the slot of `call` (request `id`), before its caller is answered, with what it
        /// tells an adaptive limit (`sample`); returns the error its caller gets instead of its
        /// outcome when the pipeline stopped it.
        func finished(_ id: RequestID, _ call: RunningCall, sample: LatencySample? = nil) -> NetworkError? {
            call.leave()
            if self.finished.leave(id, sample: sample) { try? mailbox.send(.finished(FinishedCalls.Call(id: id, sample: sample))) }
            return call.wasStopped ? NetworkError(answer: mailbox.answerError(RuntimeError.replyDropped)) : nil
        }

        /// May one more retry be made (the retry budget)? `false` when the pipeline cannot say.
        nonisolated(nonsending) func retryPermitted() async -> Bool {
            (try? await mailbox.ask { .retryPermit($0) }) ?? false
        }

        /// The pipeline's counters.
        nonisolated(nonsending) func stats() async throws -> PipelineStats {
            try await mailbox.ask { .stats($0) }
        }
    }
}
