/// Follows redirects as the call's ``RedirectPolicy`` and ``RedirectRule`` say: each hop
/// passes the steps after this one (the security guard judges it, auth adds credentials only
/// for the base origin), within the attempt's time, and all hops together (with the 401s a
/// Digest answer dropped, ``CallRecord/discardedBytes``) within the response size limit.
struct RedirectStep: Interceptor {
    /// The client's policy, for a call whose options set none.
    let policy: RedirectPolicy

    func intercept(_ request: HTTPRequest, chain: InterceptorChain) async throws -> HTTPResponse {
        try await follow(request, chain)
    }

    private nonisolated(nonsending) func follow(_ request: HTTPRequest, _ chain: InterceptorChain) async throws(NetworkError) -> HTTPResponse {
        let redirects = chain.call.options.redirects ?? policy
        var call = chain.call
        let limit = call.client.maxResponseBytes
        var request = request
        var (hops, received) = (0, 0)
        // The retry step resets the count per attempt: only a hop is written.
        defer { if hops > 0 { call.record.followed(hops) } }
        while true {
            call.responseBytesLeft = limit - received - call.record.discardedBytes
            let response = try await chain.proceed(request, call)
            // Every transport is asked to enforce the limit while receiving; this catches one
            // that does not.
            received += response.body.count
            if received + call.record.discardedBytes > limit { throw .responseTooLarge(limit: limit) }
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
                if call.publishing {
                    call.client.events.publish(.redirected(call.id, status: response.status, to: call.client.redaction.url(next.url)))
                }
                request = next
            }
        }
    }
}
