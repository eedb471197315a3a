/// Each attempt through its origin's circuit breaker (``CircuitBreakerPolicy``): after the
/// retry step, so every attempt is counted and a refusal is final (``NetworkError/circuitOpen(origin:retryAfter:)``
/// is not retryable), and before your interceptors and the transport, so a refused attempt
/// sends nothing. The breakers are values in one lock-protected table, read and changed in the
/// caller's task: asking a component would add a message to every attempt for state that
/// changes only when an attempt ends. Every change of state is a
/// ``RequestEvent/circuitBreakerChanged(_:origin:from:to:)``.
///
/// Always in the chain, since a call may set a policy on a client that has none; a call without
/// one costs a check of its options.
struct CircuitBreakerStep: Interceptor {
    /// The client's policy, for a call whose options set none; `nil`: none.
    let policy: CircuitBreakerPolicy?
    let breakers: Locked<CircuitBreakerTable>

    init(policy: CircuitBreakerPolicy?, capacity: Int = 1_024) {
        self.policy = policy
        breakers = Locked(CircuitBreakerTable(capacity: capacity))
    }

    func intercept(_ request: HTTPRequest, chain: InterceptorChain) async throws -> HTTPResponse {
        try await attempt(request, chain)
    }

    private nonisolated(nonsending) func attempt(_ request: HTTPRequest, _ chain: InterceptorChain) async throws(NetworkError) -> HTTPResponse {
        let call = chain.call
        guard let policy = call.options.circuitBreaker ?? policy, policy.isEnabled, let origin = HTTPOrigin(request.url) else {
            return try await chain.proceed(request, call)
        }
        let client = call.client
        let key = CircuitBreakerTable.Key(origin: origin, policy: policy)
        let started = client.clock.now
        // Published under the lock, so that the events of one breaker come in the order of its
        // changes (the broadcaster's own lock is always taken after this one).
        let (admission, opening) = breakers.withLock { table in
            let (admission, transition) = table.acquire(key, now: started)
            if let transition { Self.publish(transition, origin: origin, call: call, now: started) }
            return (admission, transition)
        }
        if let opening { Self.log(opening, origin: origin, call: call) }
        let ticket: CircuitBreakerTable.Ticket
        switch admission {
        case .permitted(let permitted):
            ticket = permitted
        case .refused(let retryAt):
            throw .circuitOpen(origin: Self.text(of: origin), retryAfter: retryAt.map { max(.zero, $0 - started) } ?? .zero)
        }
        let result: Result<HTTPResponse, NetworkError>
        do {
            result = .success(try await chain.proceed(request, call))
        } catch {
            result = .failure(error)
        }
        let ended = client.clock.now
        let outcome = Task.isCancelled ? .ignored : Self.outcome(of: result)
        // Drawn only for an outcome that may open the breaker: a success never needs jitter.
        let random = outcome == .failure || ended - started >= policy.slowCallDuration ? client.random.nextUnit() : 0
        let change = breakers.withLock { table in
            let transition = table.record(outcome, of: ticket, duration: ended - started, now: ended, random: random)
            if let transition { Self.publish(transition, origin: origin, call: call, now: ended) }
            return transition
        }
        if let change { Self.log(change, origin: origin, call: call) }
        return try result.get()
    }

    /// How the breaker counts an attempt's end: a 5xx, a timeout, a connection not made or
    /// lost, a response that broke HTTP are failures (the origin is in trouble); any other
    /// answer, a 4xx included, is a success (it answered); what says nothing of the origin (the
    /// device offline, a cancellation, a rule of this client) is not counted.
    static func outcome(of result: Result<HTTPResponse, NetworkError>) -> CircuitBreaker.Outcome {
        switch result {
        case .success(let response):
            return response.status >= 500 ? .failure : .success
        case .failure(let error):
            switch error {
            case .timeout, .cannotConnect, .connectionLost, .malformedResponse, .invalidResponse:
                return .failure
            default:
                guard let status = error.statusCode else { return .ignored }
                return status >= 500 ? .failure : .success
            }
        }
    }

    /// `https://api.example.com:443`: the origin as errors and events name it.
    static func text(of origin: HTTPOrigin) -> String {
        let host = origin.host.contains(":") ? "[\(origin.host)]" : origin.host
        return origin.port < 0 ? "\(origin.scheme)://\(host)" : "\(origin.scheme)://\(host):\(origin.port)"
    }

    private static func publish(_ transition: CircuitBreaker.Transition, origin: HTTPOrigin, call: ChainCall, now: Duration) {
        call.client.events.publish(.circuitBreakerChanged(
            call.id, origin: text(of: origin), from: state(transition.from, now: now), to: state(transition.to, now: now)))
    }

    /// Outside the lock: a logger may write to a file.
    private static func log(_ transition: CircuitBreaker.Transition, origin: HTTPOrigin, call: ChainCall) {
        guard let logger = call.client.logger else { return }
        let to = switch transition.to {
        case .closed: "closed"
        case .open: "open"
        case .halfOpen: "half-open"
        }
        logger.log(.warning, "circuit breaker \(to)", metadata: ["origin": text(of: origin), "request": call.id.description])
    }

    private static func state(_ state: CircuitBreaker.State, now: Duration) -> CircuitBreakerState {
        switch state {
        case .closed: .closed
        case .open(let until): .open(for: max(.zero, until - now))
        case .halfOpen: .halfOpen
        }
    }
}
