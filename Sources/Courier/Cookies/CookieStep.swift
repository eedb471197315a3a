/// The cookie store's part of each redirect hop (it runs below the redirect step and the
/// security guard, which refuses a hop before any credential is added): adds the
/// `Cookie` header of the cookies that match the hop's URL, after any the caller set by hand
/// (kept, in one field), and stores the hop's `Set-Cookie` fields, a 3xx's and an error
/// status's included. A `Set-Cookie` that is ignored is logged at debug level, with why; a
/// storage file that could not be written, as a warning (the response is the caller's all the
/// same, and the cookies are written with the next change).
struct CookieStep: Interceptor {
    let store: CookieStore

    func intercept(_ request: HTTPRequest, chain: InterceptorChain) async throws -> HTTPResponse {
        try await exchange(request, chain)
    }

    private nonisolated(nonsending) func exchange(_ request: HTTPRequest, _ chain: InterceptorChain) async throws(NetworkError) -> HTTPResponse {
        guard let url = CookieURL(request.url) else { return try await chain.proceed(request) }
        var request = request
        if let stored = await store.header(for: url) {
            // RFC 6265 §5.4: one Cookie field; the caller's own cookies first.
            let own = request.headers.values(for: "Cookie").filter { !$0.isEmpty }
            request.headers["Cookie"] = (own + [stored]).joined(separator: "; ")
        }
        let response = try await chain.proceed(request)
        let fields = response.headers.values(for: "Set-Cookie")
        guard !fields.isEmpty else { return response }
        let (refusals, writeFailure) = await store.receive(fields, from: url)
        if let writeFailure, let logger = chain.call.client.logger, logger.isEnabled(.warning) {
            logger.log(.warning, "could not write the cookie file", metadata: [
                "request": chain.call.id.description, "host": url.host, "error": writeFailure.description,
            ])
        }
        if !refusals.isEmpty, let logger = chain.call.client.logger, logger.isEnabled(.debug) {
            for refusal in refusals {
                logger.log(.debug, "ignored a Set-Cookie", metadata: [
                    "request": chain.call.id.description, "host": url.host, "reason": refusal.reason,
                ])
            }
        }
        return response
    }
}
