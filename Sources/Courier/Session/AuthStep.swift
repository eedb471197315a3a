/// Adds the credentials of the client's ``AuthInterceptor`` (the session's `Bearer` token, your
/// token closure's, or a password) to a request to the base origin that requires them: without
/// a wait when the token store's credential can be read at once. A queued write's replay
/// (``CallSettings/sessionIdentity``) gets only its identity's credentials.
///
/// With a Digest password it also answers the server's challenge: it sits after the redirect
/// step, so each hop gets its own answer, and re-sends the hop at most once per fresh challenge
/// plus once for a `stale=true` one (a server that keeps refusing ends with its 401). The one
/// built-in step that proceeds more than once per hop: each re-send passes the steps below
/// (the cookie step's cookies, a 401's `Set-Cookie` included), and a dropped 401's body counts
/// against the response size limit.
struct AuthStep: Interceptor {
    let auth: AuthInterceptor

    func intercept(_ request: HTTPRequest, chain: InterceptorChain) async throws -> HTTPResponse {
        var request = request
        guard try await authorize(&request, chain.call) else { return try await chain.proceed(request) }
        let response = try await chain.proceed(request)
        guard response.status == 401, let password = auth.password, password.scheme == .digest else { return response }
        return try await answerChallenges(response, to: request, password, chain)
    }

    /// Adds the credentials `request` needs; returns whether it needs any.
    private nonisolated(nonsending) func authorize(_ request: inout HTTPRequest, _ call: ChainCall) async throws(NetworkError) -> Bool {
        guard auth.applies(
            to: request, requiresAuth: call.options.requiresAuth, baseOrigin: call.client.baseOrigin, hasBaseURL: call.client.baseURL != nil)
        else { return false }
        if let identity = call.settings.sessionIdentity {
            try await auth.addCredentials(to: &request, as: identity)
        } else if try !auth.addCredentialsNow(to: &request) {
            try await auth.addCredentialsWaiting(to: &request)
        }
        return true
    }

    /// Answers the Digest challenges of `response`, a 401 to `request`, until the server
    /// accepts, refuses an answer to a fresh challenge, or sends no challenge Courier can answer.
    private nonisolated(nonsending) func answerChallenges(
        _ response: HTTPResponse, to request: HTTPRequest, _ password: PasswordAuthentication, _ chain: InterceptorChain
    ) async throws(NetworkError) -> HTTPResponse {
        var (response, request, call) = (response, request, chain.call)
        // An answer went with the request (the origin's last challenge, answered at once).
        var answered = request.headers.contains("Authorization")
        var (answeredFresh, answeredStale) = (false, false)
        var lastNonce: String?
        while response.status == 401 {
            // A body read once cannot be sent again: the 401 is the answer.
            guard request.bodyStream?.isReopenable != false, let challenge = DigestChallenge.first(in: response.headers) else {
                return response
            }
            if challenge.stale, answered, !answeredStale {
                answeredStale = true
            } else {
                // The server refused the answer itself: later requests wait for a challenge.
                if answered, let origin = request.origin, let lastNonce { password.sessions.forget(origin, nonce: lastNonce) }
                guard !answeredFresh else { return response }
                answeredFresh = true
            }
            try password.answer(challenge, on: &request, random: chain.call.client.random)
            (answered, lastNonce) = (true, challenge.nonce)
            // The 401 is dropped, but its bytes were received: the re-send gets what is left.
            call.responseBytesLeft -= response.body.count
            call.record.discarded(response.body.count)
            response = try await chain.proceed(request, call)
        }
        return response
    }
}
