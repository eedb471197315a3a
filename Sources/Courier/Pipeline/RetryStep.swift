/// The attempts of an admitted call: each passes the steps after this one; between them the
/// 401 renewal (a newer token from the session, one replay) and the retry decision
/// (``RetryPolicy/decide(attempt:request:isRead:outcome:now:randomUnit:)``, the retry budget's
/// permit, the wait), all within the call's deadline. It hands back the last attempt's
/// response, whatever its status, or its error.
///
/// Each attempt starts from the caller's request with the client's `User-Agent` added (unless
/// it has one), so every interceptor sees it, and ends at its timeout or the call's deadline.
struct RetryStep: Interceptor {
    /// The client's policy, for a call whose options set none.
    let policy: RetryPolicy
    let pipeline: RequestPipeline.Handle
    /// The session's token store, when the client has one: a 401 to its token is renewed and
    /// replayed once.
    let tokens: TokenStore.Handle?
    let userAgent: String?

    func intercept(_ request: HTTPRequest, chain: InterceptorChain) async throws -> HTTPResponse {
        try await attempts(request, chain)
    }

    private nonisolated(nonsending) func attempts(_ request: HTTPRequest, _ chain: InterceptorChain) async throws(NetworkError) -> HTTPResponse {
        var call = chain.call
        let client = call.client
        var outgoing = request
        if let userAgent, !outgoing.headers.contains("User-Agent") { outgoing.headers.add(name: "User-Agent", value: userAgent) }
        var renewedCredential = false
        while true {
            let now = client.clock.now
            guard call.deadline > now else { throw .timeout(.request, underlying: nil) }
            if call.publishing { client.events.publish(.attempt(call.id, number: call.attempt)) }
            let attemptEnd = now + call.attemptTimeout
            call.attemptEnd = attemptEnd < call.deadline ? (attemptEnd, .attempt) : (call.deadline, .request)
            call.record.attempting(call.attempt)

            let outcome: RetryPolicy.AttemptOutcome
            do {
                outcome = .response(try await chain.proceed(outgoing, call))
            } catch {
                outcome = .failure(error)
            }
            if Task.isCancelled { throw .cancelled }
            let refused = if case .response(let response) = outcome {
                response.status == 401 || (response.status < 500 && call.settings.credentialRejected?(response) == true)
            } else { false }
            // A success is final: skip the retry decision (and its clock and random reads).
            if !refused, case .response(let response) = outcome, response.status < 400 { return response }
            // Judged on the request as sent: an interceptor may have added an Idempotency-Key,
            // and auth the credential's version.
            let sent = call.record.sent ?? outgoing
            // A 401 to the session's token: get a newer one (the token store makes one refresh
            // for any number of such requests) and replay once; a second 401 is final.
            if refused, !renewedCredential, sent.bodyStream?.isReopenable != false, let version = sent.credentialVersion, let tokens {
                renewedCredential = true
                do throws(NetworkError) {
                    _ = try await tokens.renewed(after: version)
                } catch .unauthorized {
                    return try Self.answer(outcome)
                }
                call.attempt += 1
                continue
            }
            let decision = (call.options.retryPolicy ?? policy).decide(
                attempt: call.attempt, request: sent, isRead: call.settings.readKey != nil, outcome: outcome,
                now: client.clock.currentDate, randomUnit: client.random.nextUnit())
            guard case .retry(let delay, let reason) = decision,
                  client.clock.now + delay < call.deadline,
                  await pipeline.retryPermitted()
            else { return try Self.answer(outcome) }

            if call.publishing { client.events.publish(.retrying(call.id, attempt: call.attempt, delay: delay, reason: reason)) }
            client.logger?.log(
                .info, "retrying", metadata: ["request": call.id.description, "attempt": String(call.attempt), "reason": reason])
            if delay > .zero {
                do { try await client.clock.sleep(for: delay) } catch { throw .cancelled }
            }
            call.attempt += 1
        }
    }

    /// The last attempt's response, or its error.
    private static func answer(_ outcome: RetryPolicy.AttemptOutcome) throws(NetworkError) -> HTTPResponse {
        switch outcome {
        case .response(let response): return response
        case .failure(let error): throw error
        }
    }
}
