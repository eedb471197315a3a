/// Hedged requests (``HedgingPolicy``): after the retry step, so a hedge is part of one attempt
/// and the retry decision sees only the attempt's winning answer; before the circuit breaker,
/// so each hedge passes (and is counted by) its origin's breaker, and before your interceptors
/// and the transport, which see each hedge as a request of its own.
///
/// Courier's own steps may proceed more than once (only the user's are held to once per
/// attempt); this one runs its attempts as child tasks, so cancelling the loser reaches the
/// transport. A hedge takes a permit from the hedge budget, one from the client's
/// ``RetryBudget`` and an admission slot of its own, held while it runs; it goes out only if a
/// slot is free at once (a hedge that waited for one would come too late, and would go before
/// the calls waiting).
///
/// A streamed call or a WebSocket's handshake is never hedged: its answer is a body still
/// arriving, or a connection, which the attempt that won would have to outlive.
///
/// Always in the chain, since a call may set a policy on a client that has none; a call without
/// one costs a check of its options.
struct HedgingStep: Interceptor {
    /// The client's policy, for a call whose options set none; `nil`: none.
    let policy: HedgingPolicy?
    let pipeline: RequestPipeline.Handle
    let state: Locked<HedgingState>

    init(policy: HedgingPolicy?, pipeline: RequestPipeline.Handle) {
        self.policy = policy
        self.pipeline = pipeline
        state = Locked(HedgingState(budget: policy?.budget))
    }

    func intercept(_ request: HTTPRequest, chain: InterceptorChain) async throws -> HTTPResponse {
        try await attempt(request, chain)
    }

    /// What one child task reports: an attempt's answer and how long it took, or that the
    /// delay before the next hedge passed.
    private enum Event: Sendable {
        case answered(Result<HTTPResponse, NetworkError>, after: Duration)
        case delayPassed
    }

    private nonisolated(nonsending) func attempt(_ request: HTTPRequest, _ chain: InterceptorChain) async throws(NetworkError) -> HTTPResponse {
        let call = chain.call
        guard let policy = call.options.hedging ?? policy, policy.isEnabled, policy.maxExtraAttempts > 0,
              call.settings.stream == nil, call.settings.webSocket == nil, Self.isRepeatable(request),
              let origin = HTTPOrigin(request.url)
        else { return try await chain.proceed(request, call) }
        let client = call.client
        let started = client.clock.now
        let delay = state.withLock { $0.begin(origin, policy: policy) }
        let pipeline = pipeline
        let state = state

        let result = await withTaskGroup(of: Event.self, returning: Result<HTTPResponse, NetworkError>.self) { group in
            @Sendable func send() async -> Event {
                let sent = client.clock.now
                do {
                    let response = try await chain.proceed(request, call)
                    return .answered(.success(response), after: client.clock.now - sent)
                } catch {
                    return .answered(.failure(error), after: client.clock.now - sent)
                }
            }
            /// A hedge, in the slot it was admitted to (`id`, `slot`); its answer feeds the
            /// slot's lane as a call's would.
            @Sendable func hedge(_ id: RequestID, _ slot: RunningCall) async -> Event {
                slot.enter()
                let event = await send()
                var sample: LatencySample?
                if case .answered(let result, let latency) = event { sample = AdmissionStep.sample(result, after: latency) }
                // A hedge the pipeline stopped ended cancelled; the call's own slot reports the stop.
                _ = pipeline.finished(id, slot, sample: sample)
                return event
            }
            @Sendable func wait() async -> Event {
                do { try await client.clock.sleep(for: delay) } catch { return .delayPassed }
                return .delayPassed
            }
            group.addTask(operation: send)
            group.addTask(operation: wait)
            var hedges = 0
            var running = 1
            var last: Result<HTTPResponse, NetworkError> = .failure(.cancelled)
            while let event = await group.next() {
                switch event {
                case .delayPassed:
                    guard running > 0, !Task.isCancelled, hedges < policy.maxExtraAttempts, state.withLock({ $0.withdraw() }) else {
                        continue
                    }
                    let id = pipeline.nextID()
                    guard let slot = await pipeline.admitHedge(id, deadline: call.deadline, priority: call.options.priority ?? .default, origin: origin)
                    else {
                        state.withLock { $0.refund() }
                        continue
                    }
                    hedges += 1
                    running += 1
                    if call.publishing { client.events.publish(.hedged(call.id, after: client.clock.now - started)) }
                    group.addTask { await hedge(id, slot) }
                    if hedges < policy.maxExtraAttempts { group.addTask(operation: wait) }
                case .answered(let result, let latency):
                    running -= 1
                    last = result
                    if case .success(let response) = result, response.status < 500 {
                        state.withLock { $0.record(latency, of: origin, policy: policy) }
                        group.cancelAll()
                        return result
                    }
                    // A failed attempt: the others' answers are awaited.
                    if running == 0 {
                        group.cancelAll()
                        return result
                    }
                }
            }
            return last
        }
        return try result.get()
    }

    /// Whether sending `request` twice is safe: an idempotent method, or an `Idempotency-Key`,
    /// and a body that can be read again.
    static func isRepeatable(_ request: HTTPRequest) -> Bool {
        if request.bodyStream?.isReopenable == false { return false }
        return switch request.method {
        case .get, .head, .options, .put, .delete: true
        default: request.headers.contains("Idempotency-Key")
        }
    }
}
