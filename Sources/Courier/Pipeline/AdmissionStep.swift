/// The pipeline's part of a call: resolves its settings once (id, deadline, attempt timeout),
/// waits for a slot (``RequestPipeline/Handle/admit(_:deadline:priority:origin:)``), runs the steps after it in
/// the caller's task, frees the slot (with the call's latency, for an adaptive limit), and turns the outcome into the call's answer: the response's metrics, a status of 400
/// or more as its ``NetworkError``, and the request events (started, finished or failed).
///
/// The token refresh passes it without a slot (``unadmitted(_:_:)``): the requests waiting for
/// the refresh hold the slots it would queue behind.
struct AdmissionStep: Interceptor {
    let pipeline: RequestPipeline.Handle
    /// The client's defaults, for a request whose options and own timeout set none.
    let attemptTimeout: Duration
    let requestDeadline: Duration

    func intercept(_ request: HTTPRequest, chain: InterceptorChain) async throws -> HTTPResponse {
        try await run(request, chain, takesSlot: true)
    }

    /// Runs `request` from this step on without taking a slot.
    nonisolated(nonsending) func unadmitted(_ request: HTTPRequest, _ chain: InterceptorChain) async throws(NetworkError) -> HTTPResponse {
        try await run(request, chain, takesSlot: false)
    }

    private nonisolated(nonsending) func run(
        _ request: HTTPRequest, _ chain: InterceptorChain, takesSlot: Bool
    ) async throws(NetworkError) -> HTTPResponse {
        var call = chain.call
        let client = call.client
        call.id = pipeline.nextID()
        call.created = client.clock.now
        call.deadline = call.created + (call.options.deadline ?? requestDeadline)
        call.attemptTimeout = call.options.attemptTimeout ?? request.timeout ?? attemptTimeout
        call.publishing = client.events.hasSubscribers
        var result: Result<HTTPResponse, NetworkError>
        var running: RunningCall?
        var admitted = call.created
        do throws(NetworkError) {
            if takesSlot {
                let priority = call.options.priority ?? .default
                do throws(NetworkError) {
                    running = try await pipeline.admit(call.id, deadline: call.deadline, priority: priority, origin: HTTPOrigin(request.url))
                } catch .overloaded {
                    if call.publishing { client.events.publish(.shed(call.id, priority: priority)) }
                    throw .overloaded
                }
                admitted = client.clock.now
                running?.enter()
            }
            if call.publishing {
                client.events.publish(.started(call.id, method: request.method, url: client.redaction.url(request.url), operation: call.options.operationName))
            }
            result = .success(try await chain.proceed(request, call))
        } catch {
            result = .failure(error)
        }
        if let running, let stopped = pipeline.finished(call.id, running, sample: Self.sample(result, after: client.clock.now - admitted)) {
            result = .failure(stopped)
        }
        // Refused admission: never started, no attempt made.
        let (attempts, redirects) = call.record.counts
        // From the call's entry into admission, its wait for a slot included.
        let duration = client.clock.now - call.created
        if case .success(var response) = result {
            response.metrics = RequestMetrics(id: call.id, attempts: attempts, redirects: redirects, duration: duration)
            if response.status >= 400 {
                // Only a failure pays for its context: the request it answers, its error body.
                let error = NetworkError(
                    response: response, answering: call.record.sent ?? request, errorBody: call.options.errorBody ?? client.errorBody,
                    decoder: client.decoder)
                result = .failure(error ?? .serverError(response))
            } else {
                result = .success(response)
            }
        }
        if call.publishing {
            switch result {
            case .success(let response): client.events.publish(.finished(call.id, status: response.status, attempts: attempts, duration: duration))
            case .failure(let error): client.events.publish(.failed(call.id, error: error, attempts: attempts, duration: duration))
            }
        }
        return try result.get()
    }

    /// What a call's outcome tells its origin's adaptive limit: its latency, and whether the
    /// origin dropped it (a timeout, or a 503 or 429 answer: the origin is overloaded). A
    /// cancelled call, or one that failed before it reached the origin, tells nothing.
    static func sample(_ result: Result<HTTPResponse, NetworkError>, after rtt: Duration) -> LatencySample? {
        switch result {
        case .success(let response): LatencySample(rtt: rtt, dropped: response.status == 503 || response.status == 429)
        case .failure(.timeout): LatencySample(rtt: rtt, dropped: true)
        case .failure(.serverError(let response)): LatencySample(rtt: rtt, dropped: response.status == 503)
        case .failure: nil
        }
    }
}
