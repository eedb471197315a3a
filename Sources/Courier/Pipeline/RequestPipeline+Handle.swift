extension RequestPipeline {
    /// What a caller holds to use a pipeline: its mailbox, the settings requests are resolved
    /// against, and the request numbering. Copies share the numbering.
    struct Handle: Sendable {
        let mailbox: Mailbox<Message>
        private let configuration: Configuration
        private let execution: RequestExecution
        private let lastID = Locked<UInt64>(0)

        init(mailbox: Mailbox<Message>, configuration: Configuration, execution: RequestExecution) {
            self.mailbox = mailbox
            self.configuration = configuration
            self.execution = execution
        }

        /// Sends `request` through the pipeline and returns its final response (2xx, or a 3xx
        /// that was not followed). Its settings are resolved here, once: the options, else the
        /// request's own timeout (attempt), else the pipeline's. Cancelling the calling task
        /// cancels the request.
        /// - Throws: the request's ``NetworkError``, or a ``RuntimeError`` if the pipeline is
        ///   unavailable or restarted while holding it.
        nonisolated(nonsending) func send(_ request: HTTPRequest, options: RequestOptions) async throws -> HTTPResponse {
            let id = nextID()
            return try await mailbox.ask(
                { .execute(pending(request, options: options, id: id, reply: $0)) },
                onCancel: .cancel(id), cancelledError: NetworkError.cancelled)
        }

        /// Sends `request` as ``send(_:options:)`` does, for a component that takes the answer
        /// as a message of its own: `reply` (made with ``Reply/init(answer:)``) is answered once
        /// with the outcome, as an asker would be (``failure(_:)`` maps a runtime error the same
        /// way). Returns the request's number, for ``cancel(_:)``.
        func submit(_ request: HTTPRequest, options: RequestOptions, reply: Reply<HTTPResponse>) -> RequestID {
            let id = nextID()
            if (try? mailbox.send(.execute(pending(request, options: options, id: id, reply: reply)))) == nil {
                reply.fail(RuntimeError.componentUnavailable(mailbox.name))
            }
            return id
        }

        /// What a ``submit(_:options:reply:)``'s failure is to the submitter: the pipeline's
        /// error, or a runtime error as an asker would see it.
        func failure(_ error: any Error) -> NetworkError {
            NetworkError(answer: mailbox.answerError(error))
        }

        /// Cancels a request ``submit(_:options:reply:)`` sent (a tell): a running one's task
        /// is cancelled, a queued one leaves the queue; nothing if it already ended.
        func cancel(_ id: RequestID) {
            try? mailbox.send(.cancel(id))
        }

        /// Sends one of the client's own requests (the token refresh) as ``send(_:options:)``
        /// does, without credentials, but without an admission slot, so it never waits behind
        /// the requests that are waiting for it (see ``RequestExecution/runUnadmitted(_:)``).
        nonisolated(nonsending) func sendUnadmitted(_ request: HTTPRequest) async -> Result<HTTPResponse, NetworkError> {
            do {
                return .success(try await withUnsafeThrowingContinuation { continuation in
                    let pending = pending(
                        request, options: RequestOptions(requiresAuth: false), id: nextID(), reply: Reply(slot: .init(.task(continuation))))
                    Task { [execution] in await execution.runUnadmitted(pending) }
                })
            } catch {
                return .failure(NetworkError(answer: error))
            }
        }

        /// `request` on its way to `reply`, its settings resolved once: the options, else the
        /// request's own timeout (attempt), else the pipeline's.
        private func pending(_ request: HTTPRequest, options: RequestOptions, id: RequestID, reply: Reply<HTTPResponse>) -> PendingRequest {
            let now = configuration.clock.now
            return PendingRequest(
                id: id, request: request, options: options, created: now,
                deadline: now + (options.deadline ?? configuration.requestDeadline),
                attemptTimeout: options.attemptTimeout ?? request.timeout ?? configuration.attemptTimeout, reply: reply)
        }

        /// A new request identifier.
        private func nextID() -> RequestID {
            RequestID(lastID.withLock { $0 += 1; return $0 })
        }

        /// The pipeline's counters.
        nonisolated(nonsending) func stats() async throws -> PipelineStats {
            try await mailbox.ask { .stats($0) }
        }
    }
}
