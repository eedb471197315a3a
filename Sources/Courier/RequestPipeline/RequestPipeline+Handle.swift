extension RequestPipeline {
    /// What a caller holds to use a pipeline: its mailbox, the settings requests are resolved
    /// against, and the request numbering. Copies share the numbering.
    struct Handle: Sendable {
        let mailbox: Mailbox<Message>
        private let configuration: Configuration
        private let lastID = Locked<UInt64>(0)

        init(mailbox: Mailbox<Message>, configuration: Configuration) {
            self.mailbox = mailbox
            self.configuration = configuration
        }

        /// Sends `request` through the pipeline and returns its final response (2xx, or a 3xx
        /// that was not followed). Its settings are resolved here, once: the options, else the
        /// request's own timeout (attempt), else the pipeline's; the default `User-Agent` is
        /// added unless the request has one. Cancelling the calling task cancels the request.
        /// - Throws: the request's ``NetworkError``, or a ``RuntimeError`` if the pipeline is
        ///   unavailable or restarted while holding it.
        func send(_ request: HTTPRequest, options: RequestOptions) async throws -> HTTPResponse {
            var request = request
            if let userAgent = configuration.userAgent, !request.headers.contains("User-Agent") {
                request.headers.add(name: "User-Agent", value: userAgent)
            }
            let id = RequestID(lastID.withLock { $0 += 1; return $0 })
            let deadline = configuration.clock.now + (options.deadline ?? configuration.requestDeadline)
            let attemptTimeout = options.attemptTimeout ?? request.timeout ?? configuration.attemptTimeout
            let retryPolicy = options.retryPolicy ?? configuration.retryPolicy
            return try await mailbox.ask(
                { reply in
                    .execute(PendingRequest(
                        id: id, request: request, deadline: deadline, attemptTimeout: attemptTimeout,
                        retryPolicy: retryPolicy, requiresAuth: options.requiresAuth, reply: reply))
                },
                onCancel: .cancel(id), cancelledError: NetworkError.cancelled)
        }

        /// The pipeline's counters.
        func stats() async throws -> PipelineStats {
            try await mailbox.ask { .stats($0) }
        }
    }
}
