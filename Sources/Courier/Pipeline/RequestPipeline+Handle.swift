extension RequestPipeline {
    /// What a caller holds to use a pipeline: its mailbox and the request numbering. Copies
    /// share the numbering, and every instance uses it, so an id a failed instance left is
    /// never another's.
    struct Handle: Sendable {
        let mailbox: Mailbox<Message>
        private let lastID = Locked<UInt64>(0)

        init(mailbox: Mailbox<Message>) {
            self.mailbox = mailbox
        }

        /// A new request identifier.
        func nextID() -> RequestID {
            RequestID(lastID.withLock { $0 += 1; return $0 })
        }

        /// Runs `work` once the pipeline admits request `id`, in a task that inherits the
        /// caller's task-local values and priority, and frees the slot when it ends (before the
        /// caller wakes). Cancelling the calling task cancels the work, or the wait for a slot.
        /// - Returns: the work's result; `overloaded` when the queue is full, `timeout` when no
        ///   slot freed before `deadline`, `cancelled`, or the pipeline's unavailability when it
        ///   stopped meanwhile (shutdown, or a failure).
        nonisolated(nonsending) func admitted(
            _ id: RequestID, deadline: Duration, _ work: @escaping @Sendable () async -> Result<HTTPResponse, NetworkError>
        ) async -> Result<HTTPResponse, NetworkError> {
            let call = RunningCall()
            let task = Self.start(id, deadline: deadline, call, mailbox, work)
            call.started(task)
            let result = await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
            if call.wasStopped { return .failure(NetworkError(answer: mailbox.answerError(RuntimeError.replyDropped))) }
            return result
        }

        /// The task of one request: admission, the work, the slot freed. Started from a
        /// synchronous function so that it runs on the pool, not on the caller's actor.
        private static func start(
            _ id: RequestID, deadline: Duration, _ call: RunningCall, _ mailbox: Mailbox<Message>,
            _ work: @escaping @Sendable () async -> Result<HTTPResponse, NetworkError>
        ) -> Task<Result<HTTPResponse, NetworkError>, Never> {
            Task {
                do {
                    try await mailbox.ask(
                        { .admit(id, deadline: deadline, call, $0) }, onCancel: .cancel(id), cancelledError: NetworkError.cancelled)
                } catch {
                    return .failure(NetworkError(answer: error))
                }
                let result = await work()
                try? mailbox.send(.finished(id))
                return result
            }
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
