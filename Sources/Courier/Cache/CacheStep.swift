/// The cache's part of a call. A GET (or a read with its own key, ``CallSettings/readKey``)
/// whose credentials have a known owner is answered from the shelf without a message (a fresh
/// `cacheFirst` hit), else by the cache actor, which serves from storage or fetches: it shares
/// one fetch among identical requests, revalidates and stores. A write that succeeds makes the
/// stored reads of its URL stale. If the cache fails while holding the request, the request
/// goes on to the network. A request that carries cookies (its own, or the jar's, which the
/// cookie step adds below) is its own partition, keyed by its `Cookie` field as sent, which a
/// stored response's `Vary` is matched against too: cookies authenticate. A response served from storage is reported (a request event and, at
/// `verbose` detail, a log line), since no later step sees it.
struct CacheStep: Interceptor {
    let cache: Cache.Handle
    /// The first auth interceptor a request meets: it says which requests carry credentials.
    let authentication: AuthInterceptor?
    let tokens: TokenStore.Handle?
    /// The cookie jar the cookie step reads below, if the client keeps cookies.
    let cookies: CookieStore?
    /// Numbers a hit that is reported: it never reaches admission, which numbers the others.
    let pipeline: RequestPipeline.Handle
    /// The client's logging, if any.
    let logging: LoggingInterceptor?

    func intercept(_ request: HTTPRequest, chain: InterceptorChain) async throws -> HTTPResponse {
        try await cached(request, chain)
    }

    private nonisolated(nonsending) func cached(_ request: HTTPRequest, _ chain: InterceptorChain) async throws(NetworkError) -> HTTPResponse {
        let (options, settings) = (chain.call.options, chain.call.settings)
        // A stream is never cached (nor answered from the cache): its body is the caller's alone.
        if settings.stream != nil || settings.webSocket != nil, request.method == .get { return try await chain.proceed(request) }
        guard request.method == .get || settings.readKey != nil else {
            let response = try await chain.proceed(request)
            if request.method.writes { cache.forget(.invalidate(url: request.url.absoluteString)) }
            return response
        }
        // Entries are filed under the parsed URL's text, which is what invalidations name.
        let url = settings.readKey ?? request.url.absoluteString
        guard let identity = Self.identity(of: request, url: url, options, authentication: authentication, tokens: tokens) else {
            return try await chain.proceed(request)
        }
        let sent = await headersAsSent(request)
        // Every Cookie field, should the caller have set several.
        let cookie = sent.values(for: "Cookie").filter { !$0.isEmpty }
        let key = CacheKey(url: url, identity: CacheKey.identity(identity, cookie: cookie.isEmpty ? nil : cookie.joined(separator: "; ")))
        let (policy, ttl) = (options.cachePolicy ?? cache.defaultPolicy, options.cacheTTL ?? cache.defaultTTL)
        if policy == .cacheFirst, ttl != .noCache, let fresh = cache.freshResponse(headers: sent, key: key) {
            report(fresh, to: request, chain.call.client)
            return fresh
        }
        // The fetch is prepared here, so that it runs with the caller's task-local values; the
        // cache starts it or it is dropped once the cache answered.
        let fetch = PreparedFetch { request in
            do throws(NetworkError) {
                return .success(try await chain.proceed(request))
            } catch {
                return .failure(error)
            }
        }
        defer { fetch.drop() }
        do {
            let response = try await cache.get(
                CacheRequest(request: request, headers: sent, key: key, policy: policy, ttl: ttl, fetch: fetch))
            report(response, to: request, chain.call.client)
            return response
        } catch RuntimeError.componentRestarted {
            // The cache failed while holding this request: the network answers instead.
            return try await chain.proceed(request)
        } catch {
            throw NetworkError(answer: error)
        }
    }

    /// Publishes and logs `response` as served from storage, if it was and anyone listens.
    private func report(_ response: HTTPResponse, to request: HTTPRequest, _ client: ChainSettings) {
        guard let seconds = response.cacheAge else { return }
        let (publishing, logs) = (client.events.hasSubscribers, logging?.logsCacheHits ?? false)
        guard publishing || logs else { return }
        let id = pipeline.nextID()
        let (url, age) = (client.redaction.url(request.url), Duration.seconds(seconds))
        if publishing {
            client.events.publish(.servedFromCache(id, method: request.method, url: url, status: response.status, age: age))
        }
        if logs { logging?.logCacheHit(request, response, age: age, id: id) }
    }

    /// `request`'s headers with the `Cookie` field the cookie step will send (the caller's own
    /// cookies, then the jar's), read without marking the jar's used.
    private nonisolated(nonsending) func headersAsSent(_ request: HTTPRequest) async -> HTTPHeaders {
        guard let cookies, let url = CookieURL(request.url), let stored = await cookies.expectedHeader(for: url) else {
            return request.headers
        }
        var headers = request.headers
        let own = headers.values(for: "Cookie").filter { !$0.isEmpty }
        headers["Cookie"] = (own + [stored]).joined(separator: "; ")
        return headers
    }

    /// Whose cached responses `request` may use: "" (shared) when it carries no credentials, the
    /// session's identity when it carries the session's, the user's when it carries a password,
    /// and `nil` (not cached at all) when it carries credentials of unknown identity (its own
    /// `Authorization`, or a token closure's). Also what keeps coalesced queries apart
    /// (``QueryCoalescingStep``).
    static func identity(
        of request: HTTPRequest, url: String, _ options: RequestOptions, authentication: AuthInterceptor?, tokens: TokenStore.Handle?
    ) -> String? {
        if request.headers.contains("Authorization") { return nil }
        guard options.requiresAuth, let authentication else { return "" }
        if authentication.isPublic(pathOfURLText: url) { return "" }
        return tokens?.credential.read { $0.identity } ?? authentication.password.map { "password:" + $0.credential.user }
    }
}
