/// Adds the credentials of the client's ``AuthInterceptor`` (the session's `Bearer` token, or
/// your token closure's) to a request to the base origin that requires them: without a wait
/// when the token store's credential can be read at once. A queued write's replay
/// (``CallSettings/sessionIdentity``) gets only its identity's credentials.
struct AuthStep: Interceptor {
    let auth: AuthInterceptor

    func intercept(_ request: HTTPRequest, chain: InterceptorChain) async throws -> HTTPResponse {
        var request = request
        try await authorize(&request, chain.call)
        return try await chain.proceed(request)
    }

    private nonisolated(nonsending) func authorize(_ request: inout HTTPRequest, _ call: ChainCall) async throws(NetworkError) {
        guard auth.applies(
            to: request, requiresAuth: call.options.requiresAuth, baseOrigin: call.client.baseOrigin, hasBaseURL: call.client.baseURL != nil)
        else { return }
        if let identity = call.settings.sessionIdentity { return try await auth.addCredentials(to: &request, as: identity) }
        if try auth.addCredentialsNow(to: &request) { return }
        try await auth.addCredentialsWaiting(to: &request)
    }
}
