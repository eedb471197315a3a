import Foundation

/// The work of one request, run in its own task by the pipeline: attempts (request
/// interceptors, transport, response interceptors), retry decisions and waits, the final
/// status-to-error mapping, events, and the answer.
///
/// A value type with no mutable state: everything a request changes lives in its task's locals.
struct RequestExecution: Sendable {
    let transport: any HTTPTransport
    let requestInterceptors: [any RequestInterceptor]
    let responseInterceptors: [any ResponseInterceptor]
    let maxResponseBytes: Int
    let clock: any TimeSource
    let random: any RandomSource
    let logger: (any NetworkLogger)?
    let events: EventBroadcaster<RequestEvent>
    let redaction: Redaction
    /// The pipeline's own mailbox: `finished` and `retryPermit` go there.
    let mailbox: Mailbox<RequestPipeline.Message>

    init(configuration: RequestPipeline.Configuration, events: EventBroadcaster<RequestEvent>, mailbox: Mailbox<RequestPipeline.Message>) {
        transport = configuration.transport
        requestInterceptors = configuration.requestInterceptors
        responseInterceptors = configuration.responseInterceptors
        maxResponseBytes = configuration.maxResponseBytes
        clock = configuration.clock
        random = configuration.random
        logger = configuration.logger
        redaction = configuration.redaction
        self.events = events
        self.mailbox = mailbox
    }

    /// Runs `pending` to its end, tells the pipeline it is finished, answers its reply, and
    /// then publishes the final event. `finished` is queued before the caller wakes, so whatever
    /// the caller or an observer of the final event sends next reaches the pipeline after it,
    /// and sees the slot freed.
    func run(_ pending: PendingRequest) async {
        let started = clock.now
        let publishing = events.hasSubscribers
        if publishing {
            events.publish(.started(pending.id, method: pending.request.method, url: redaction.url(pending.request.url)))
        }
        let (result, attempts) = await attempts(pending, publishing: publishing)
        try? mailbox.send(.finished(pending.id))
        pending.reply.resume(with: result.mapError { $0 })
        guard publishing else { return }
        let duration = clock.now - started
        switch result {
        case .success(let response):
            events.publish(.finished(pending.id, status: response.status, attempts: attempts, duration: duration))
        case .failure(let error):
            events.publish(.failed(pending.id, error: error, attempts: attempts, duration: duration))
        }
    }

    /// Answers `pending` with `error` without running it (admission refused).
    func reject(_ pending: PendingRequest, with error: NetworkError) {
        if events.hasSubscribers {
            events.publish(.failed(pending.id, error: error, attempts: 0, duration: .zero))
        }
        pending.reply.fail(error)
    }

    private func attempts(_ pending: PendingRequest, publishing: Bool) async -> (Result<HTTPResponse, NetworkError>, Int) {
        let policy = pending.retryPolicy
        var attempt = 1
        while true {
            let remaining = pending.deadline - clock.now
            guard remaining > .zero else { return (.failure(.timeout(underlying: nil)), attempt - 1) }
            if publishing { events.publish(.attempt(pending.id, number: attempt)) }

            let (sent, outcome) = await self.attempt(pending, number: attempt, timeout: min(pending.attemptTimeout, remaining))
            if Task.isCancelled || pending.reply.isAnswered { return (.failure(.cancelled), attempt) }

            // A success is final: skip the retry decision (and its clock and random reads).
            if case .response(let response) = outcome, response.isSuccess { return (.success(response), attempt) }
            // Judged on the request as sent: an interceptor may have added an Idempotency-Key.
            let decision = policy.decide(
                attempt: attempt, request: sent, outcome: outcome,
                now: clock.currentDate, randomUnit: random.nextUnit())
            guard case .retry(let delay, let reason) = decision,
                  clock.now + delay < pending.deadline,
                  await retryPermitted()
            else { return (Self.result(of: outcome), attempt) }

            if publishing { events.publish(.retrying(pending.id, attempt: attempt, delay: delay, reason: reason)) }
            logger?.log(.info, "retrying", metadata: ["request": pending.id.description, "attempt": String(attempt), "reason": reason])
            if delay > .zero {
                do { try await clock.sleep(for: delay) } catch { return (.failure(.cancelled), attempt) }
            }
            attempt += 1
        }
    }

    /// One attempt: interceptors around one transport exchange. Returns the request as the
    /// interceptors left it, and how the attempt ended.
    private func attempt(_ pending: PendingRequest, number: Int, timeout: Duration) async -> (HTTPRequest, RetryPolicy.AttemptOutcome) {
        let context = RequestContext(id: pending.id, attempt: number, requiresAuth: pending.requiresAuth, logger: logger)
        var request = pending.request
        request.timeout = timeout
        request.maximumResponseSize = maxResponseBytes
        do throws(NetworkError) {
            var response: HTTPResponse?
            for interceptor in requestInterceptors {
                switch try await interceptor.intercept(request, context: context) {
                case .proceed(let changed): request = changed
                case .respond(let answer): response = answer
                }
                if response != nil { break }
            }
            var final: HTTPResponse
            if let response { final = response } else { final = try await transport.send(request) }
            // Every transport is asked to enforce the limit while receiving; this catches one that
            // does not.
            if final.body.count > maxResponseBytes { throw .responseTooLarge(limit: maxResponseBytes) }
            for interceptor in responseInterceptors {
                final = try await interceptor.intercept(final, to: request, context: context)
            }
            return (request, .response(final))
        } catch {
            return (request, .failure(error))
        }
    }

    private func retryPermitted() async -> Bool {
        (try? await mailbox.ask { .retryPermit($0) }) ?? false
    }

    /// The request's result from its last attempt: 2xx responses succeed, other statuses map to
    /// their ``NetworkError``.
    private static func result(of outcome: RetryPolicy.AttemptOutcome) -> Result<HTTPResponse, NetworkError> {
        switch outcome {
        case .response(let response):
            if let error = NetworkError(response: response) { return .failure(error) }
            return .success(response)
        case .failure(let error):
            return .failure(error)
        }
    }
}
