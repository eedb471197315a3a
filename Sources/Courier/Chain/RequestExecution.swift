import Foundation

/// The work of one admitted request, run by one of the pipeline's workers: its attempts (each
/// one pass over the attempt steps, ``AttemptStep``, ending in the transport), the 401 renewal,
/// retry decisions and waits, the final status-to-error mapping, events, and the answer.
///
/// A value type with no mutable state: everything a request changes lives in its locals.
struct RequestExecution: Sendable {
    /// Everything the pipeline runs with (transport, interceptor chains, limits, redirects,
    /// clock, randomness, logger).
    let configuration: RequestPipeline.Configuration
    /// The origin of the base URL, worked out once.
    let baseOrigin: HTTPOrigin?
    let events: EventBroadcaster<RequestEvent>
    /// The pipeline's own mailbox: `finished` and `retryPermit` go there.
    let mailbox: Mailbox<RequestPipeline.Message>
    /// Where a finished request is left when no request waits for a slot.
    let finished = FinishedRequests()

    init(configuration: RequestPipeline.Configuration, events: EventBroadcaster<RequestEvent>, mailbox: Mailbox<RequestPipeline.Message>) {
        self.configuration = configuration
        baseOrigin = configuration.baseURL.flatMap(HTTPOrigin.init)
        self.events = events
        self.mailbox = mailbox
    }

    /// Runs `pending` to its end, frees its slot (left in ``FinishedRequests``, or a `finished`
    /// message while requests wait), answers its reply, and then publishes the final event. The
    /// slot is freed before the caller wakes, so whatever the caller or an observer of the final
    /// event sends next reaches the pipeline after it, and sees the slot free. `publishing`: whether anyone subscribed to the events when the
    /// pipeline started it (the pipeline's loop asks the broadcaster, a lock that then stays
    /// on the loop's core for a whole batch, rather than each worker from whichever core).
    nonisolated(nonsending) func run(_ pending: PendingRequest, publishing: Bool) async {
        await run(pending, admitted: true, publishing: publishing)
    }

    /// Runs `pending` as ``run(_:publishing:)`` does (interceptors, transport, redirects, retries,
    /// events) for a request that took no admission slot, so no `finished` is sent: the client's
    /// own calls that admitted requests may be waiting on (the token refresh), which must never
    /// queue behind them.
    nonisolated(nonsending) func runUnadmitted(_ pending: PendingRequest) async {
        await run(pending, admitted: false, publishing: events.hasSubscribers)
    }

    private nonisolated(nonsending) func run(_ pending: PendingRequest, admitted: Bool, publishing: Bool) async {
        if publishing {
            events.publish(.started(pending.id, method: pending.request.method, url: configuration.redaction.url(pending.request.url)))
        }
        var (outcome, attempts, redirects) = await attempts(pending, publishing: publishing)
        if admitted, finished.leave(pending.id) { try? mailbox.send(.finished(pending.id)) }
        // From the call's entry into the pipeline, its wait for a slot included.
        let duration = configuration.clock.now - pending.created
        // The response says which request it answers, and what that took.
        if case .response(var response) = outcome {
            response.metrics = RequestMetrics(id: pending.id, attempts: attempts, redirects: redirects, duration: duration)
            outcome = .response(response)
        }
        let result = Self.result(of: outcome)
        // The final event is made before the response is handed over.
        var final: RequestEvent?
        if publishing {
            final = switch result {
            case .success(let response): .finished(pending.id, status: response.status, attempts: attempts, duration: duration)
            case .failure(let error): .failed(pending.id, error: error, attempts: attempts, duration: duration)
            }
        }
        switch consume result {
        case .success(let response): pending.reply.succeed(response)
        case .failure(let error): pending.reply.fail(error)
        }
        if let final { events.publish(final) }
    }

    /// Answers `pending` with `error` without running it (admission refused).
    func reject(_ pending: PendingRequest, with error: NetworkError) {
        if events.hasSubscribers {
            events.publish(.failed(pending.id, error: error, attempts: 0, duration: .zero))
        }
        pending.reply.fail(error)
    }

    /// The request's attempts, retries and waits; returns how the last attempt ended, how many
    /// attempts were made, and the redirects the last one followed.
    private nonisolated(nonsending) func attempts(
        _ pending: PendingRequest, publishing: Bool
    ) async -> (outcome: RetryPolicy.AttemptOutcome, attempts: Int, redirects: Int) {
        var attempt = 1
        var renewedCredential = false
        var redirects = 0
        while true {
            let now = configuration.clock.now
            let remaining = pending.deadline - now
            guard remaining > .zero else { return (.failure(.timeout(.request, underlying: nil)), attempt - 1, redirects) }
            if publishing { events.publish(.attempt(pending.id, number: attempt)) }

            let (sent, outcome, followed) = await self.attempt(pending, number: attempt, startingAt: now, publishing: publishing)
            redirects = followed
            if Task.isCancelled || pending.reply.isAnswered { return (.failure(.cancelled), attempt, redirects) }

            let refused = if case .response(let response) = outcome {
                response.status == 401 || (response.status < 400 && pending.credentialRejected?(response) == true)
            } else { false }
            // A success is final: skip the retry decision (and its clock and random reads).
            if !refused, case .response(let response) = outcome, response.status < 400 { return (outcome, attempt, redirects) }
            // A 401 to the session's token: get a newer one (the token store makes one refresh
            // for any number of such requests) and replay once; a second 401 is final.
            if refused, !renewedCredential,
               sent.bodyStream?.isReopenable != false, let version = sent.credentialVersion, let tokens = configuration.tokens {
                renewedCredential = true
                do throws(NetworkError) {
                    _ = try await tokens.renewed(after: version)
                } catch .unauthorized {
                    return (outcome, attempt, redirects)
                } catch {
                    return (.failure(error), attempt, redirects)
                }
                attempt += 1
                continue
            }
            // Judged on the request as sent: an interceptor may have added an Idempotency-Key.
            let decision = (pending.retryPolicy ?? configuration.retryPolicy).decide(
                attempt: attempt, request: sent, isRead: pending.isRead, outcome: outcome,
                now: configuration.clock.currentDate, randomUnit: configuration.random.nextUnit())
            guard case .retry(let delay, let reason) = decision,
                  configuration.clock.now + delay < pending.deadline,
                  await retryPermitted()
            else { return (outcome, attempt, redirects) }

            if publishing { events.publish(.retrying(pending.id, attempt: attempt, delay: delay, reason: reason)) }
            configuration.logger?.log(.info, "retrying", metadata: ["request": pending.id.description, "attempt": String(attempt), "reason": reason])
            if delay > .zero {
                do { try await configuration.clock.sleep(for: delay) } catch { return (.failure(.cancelled), attempt, redirects) }
            }
            attempt += 1
        }
    }

    /// One attempt: the attempt steps in their order (``RequestPipeline/Configuration/attemptSteps``),
    /// ending in one transport exchange and the redirects followed after it. Returns the
    /// request as last sent, how the attempt ended, and the redirects it followed.
    private nonisolated(nonsending) func attempt(
        _ pending: PendingRequest, number: Int, startingAt now: Duration, publishing: Bool
    ) async -> (HTTPRequest, RetryPolicy.AttemptOutcome, Int) {
        // The attempt ends at its timeout or at the request's deadline, whichever comes first;
        // a timeout says which.
        let attemptEnd = now + pending.attemptTimeout
        let attempt = Attempt(
            pending: pending, number: number,
            limit: attemptEnd < pending.deadline ? (attemptEnd, .attempt) : (pending.deadline, .request),
            publishing: publishing)
        var request = pending.request
        // The default User-Agent, unless the request has one: added before the steps, so the
        // user's interceptors see it.
        if let userAgent = configuration.userAgent, !request.headers.contains("User-Agent") {
            request.headers.add(name: "User-Agent", value: userAgent)
        }
        var redirects = 0
        do throws(NetworkError) {
            var response = try await proceed(&request, &redirects, from: 0, attempt)
            if response.status == 401, !request.headers.contains("Authorization") { response.answersUnauthenticatedRequest = true }
            return (request, .response(response), redirects)
        } catch {
            return (request, .failure(error), redirects)
        }
    }

    /// What every step of one attempt reads.
    private struct Attempt {
        let pending: PendingRequest
        let number: Int
        /// When the attempt must be over, and which limit that is.
        let limit: (end: Duration, kind: NetworkError.TimeoutLimit)
        let publishing: Bool
    }

    /// What an interceptor or the logger is told about `attempt`, made where one reads it.
    private func context(of attempt: Attempt) -> RequestContext {
        RequestContext(
            id: attempt.pending.id, attempt: attempt.number, requiresAuth: attempt.pending.requiresAuth,
            baseURL: configuration.baseURL, baseOrigin: baseOrigin, logger: configuration.logger, tags: attempt.pending.tags)
    }

    /// Runs the attempt steps from `index` on and returns the response as the step at `index`
    /// hands it back. `request` is left as the request last sent, `redirects` as the redirects
    /// the transport step followed.
    private nonisolated(nonsending) func proceed(
        _ request: inout HTTPRequest, _ redirects: inout Int, from index: Int, _ attempt: Attempt
    ) async throws(NetworkError) -> HTTPResponse {
        switch configuration.attemptSteps[index] {
        case .interceptors:
            let context = context(of: attempt)
            for interceptor in configuration.requestInterceptors {
                let interception: RequestInterception
                do {
                    interception = try await interceptor.intercept(request, context: context)
                } catch {
                    throw NetworkError(thrownByInterceptor: error)
                }
                switch interception {
                case .proceed(let changed): request = changed
                case .respond(let answer): return try await intercepted(answer, to: request, context)
                }
            }
            let response = try await proceed(&request, &redirects, from: index + 1, attempt)
            return try await intercepted(response, to: request, context)
        case .securityGuard:
            try configuration.security?.check(request)
            let response = try await proceed(&request, &redirects, from: index + 1, attempt)
            if let security = configuration.security, security.warnsOnMissingSecurityHeaders {
                security.inspect(response, to: request, context: context(of: attempt))
            }
            return response
        case .auth:
            try await authorize(&request, attempt.pending)
            return try await proceed(&request, &redirects, from: index + 1, attempt)
        case .logging:
            let context = context(of: attempt)
            configuration.logging?.log(request, context: context)
            let response = try await proceed(&request, &redirects, from: index + 1, attempt)
            configuration.logging?.log(response, to: request, context: context)
            return response
        case .transport:
            return try await exchange(
                &request, followed: &redirects, id: attempt.pending.id, redirects: attempt.pending.redirects ?? configuration.redirects,
                until: attempt.limit, stream: attempt.pending.stream, uploadProgress: attempt.pending.uploadProgress,
                publishing: attempt.publishing)
        }
    }

    /// `response` after the user's response interceptors, in their order.
    private nonisolated(nonsending) func intercepted(
        _ response: HTTPResponse, to request: HTTPRequest, _ context: RequestContext
    ) async throws(NetworkError) -> HTTPResponse {
        var response = response
        for interceptor in configuration.responseInterceptors {
            do {
                response = try await interceptor.intercept(response, to: request, context: context)
            } catch {
                throw NetworkError(thrownByInterceptor: error)
            }
        }
        return response
    }

    /// The auth interceptor's part of an attempt, judged with the origin worked out once:
    /// without an `await` when the token store's credential can be read at once.
    /// A queued write's replay (``PendingRequest/sessionIdentity``) gets only its identity's credentials.
    private nonisolated(nonsending) func authorize(_ request: inout HTTPRequest, _ pending: PendingRequest) async throws(NetworkError) {
        guard let auth = configuration.auth,
              auth.applies(to: request, requiresAuth: pending.requiresAuth, baseOrigin: baseOrigin, hasBaseURL: configuration.baseURL != nil)
        else { return }
        if let identity = pending.sessionIdentity { return try await auth.addCredentials(to: &request, as: identity) }
        if try auth.addCredentialsNow(to: &request) { return }
        try await auth.addCredentialsWaiting(to: &request)
    }

    /// Sends `request`, then follows redirects as `redirects` and ``RedirectRule`` say, every
    /// hop within the attempt's time `limit` and, all hops together, within the response size
    /// limit. `request` is left as the last request sent. With `stream`, a 2xx is returned at
    /// the end of its head, its body still arriving (``HTTPResponse/streamedBody``).
    private nonisolated(nonsending) func exchange(
        _ request: inout HTTPRequest, followed hops: inout Int, id: RequestID, redirects: RedirectPolicy,
        until limit: (end: Duration, kind: NetworkError.TimeoutLimit), stream: StreamSettings?,
        uploadProgress: (@Sendable (TransferProgress) -> Void)?, publishing: Bool
    ) async throws(NetworkError) -> HTTPResponse {
        var received = 0
        while true {
            let left = limit.end - configuration.clock.now
            guard left > .zero else { throw .timeout(limit.kind, underlying: nil) }
            request.timeout = left
            request.maximumResponseSize = configuration.maxResponseBytes - received
            // What goes on the wire: with progress asked for, the body as a counted stream.
            let sent = uploadProgress.map { Self.reportingUpload(of: request, to: $0) } ?? request
            let response: HTTPResponse
            do {
                if let stream {
                    response = try await streamed(sent, stream, bodyLimit: configuration.maxResponseBytes - received)
                } else {
                    response = try await configuration.transport.send(sent)
                }
            } catch .timeout(_, let cause) {
                throw .timeout(limit.kind, underlying: cause)
            } catch .responseTooLarge(let bound) where stream != nil {
                // The stream's own limit (the transport's) or, for an error's body, the client's.
                throw .responseTooLarge(limit: bound)
            } catch .responseTooLarge {
                throw .responseTooLarge(limit: configuration.maxResponseBytes)
            }
            // Every transport is asked to enforce the limit while receiving; this catches one
            // that does not.
            received += response.body.count
            if received > configuration.maxResponseBytes { throw .responseTooLarge(limit: configuration.maxResponseBytes) }
            guard redirects.follows else { return response }
            switch RedirectRule.next(after: request, response: response) {
            case .final:
                return response
            case .refuse(let error):
                throw error
            case .follow(let next):
                if let decide = redirects.decide, !decide(response, next) { return response }
                hops += 1
                guard hops <= redirects.maxHops else { throw .tooManyRedirects(limit: redirects.maxHops) }
                try configuration.security?.check(next)
                if publishing { events.publish(.redirected(id, status: response.status, to: configuration.redaction.url(next.url))) }
                request = next
            }
        }
    }

    /// `request` with its body (bytes or a stream) sent as a stream that tells `handler` its
    /// progress.
    private static func reportingUpload(of request: HTTPRequest, to handler: @escaping @Sendable (TransferProgress) -> Void) -> HTTPRequest {
        var request = request
        guard let stream = request.bodyStream ?? request.body.map(HTTPBodyStream.data) else { return request }
        request.body = nil
        request.bodyStream = stream.reportingProgress(to: ProgressReporter(total: stream.length.map(Int64.init), handler: handler))
        return request
    }

    /// One streamed exchange: a 2xx is returned at its head, its body in
    /// ``HTTPResponse/streamedBody`` (limited by `stream`'s own size). Any other status is not a
    /// body the caller reads (a redirect's is discarded, an error's mapped), so its body is
    /// read here, within `bodyLimit`, and the response goes on as any other: redirects,
    /// retries and the 401 renewal are decided before a body byte reaches the caller.
    private nonisolated(nonsending) func streamed(
        _ request: HTTPRequest, _ stream: StreamSettings, bodyLimit: Int
    ) async throws(NetworkError) -> HTTPResponse {
        var request = request
        request.maximumResponseSize = stream.maxBytes
        var (response, bytes) = try await configuration.transport.stream(request, stallTimeout: stream.stallTimeout)
        if response.isSuccess {
            response.streamedBody = bytes
        } else {
            do {
                response.body = try await bytes.collect(upTo: bodyLimit)
            } catch .responseTooLarge {
                throw .responseTooLarge(limit: configuration.maxResponseBytes)
            }
        }
        return response
    }

    private nonisolated(nonsending) func retryPermitted() async -> Bool {
        (try? await mailbox.ask { .retryPermit($0) }) ?? false
    }

    /// The request's result from its last attempt: 2xx and 3xx responses (a 3xx that was not
    /// followed, a 304) are answered as responses; other statuses map to their ``NetworkError``.
    private static func result(of outcome: RetryPolicy.AttemptOutcome) -> Result<HTTPResponse, NetworkError> {
        switch outcome {
        case .response(let response):
            if response.status >= 400, let error = NetworkError(response: response) { return .failure(error) }
            return .success(response)
        case .failure(let error):
            return .failure(error)
        }
    }
}
