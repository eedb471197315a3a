/// Shares one request among identical concurrent GraphQL queries when the client has no cache
/// (the cache coalesces them otherwise, in its place in the chain): same endpoint, document
/// and variables (``CallSettings/readKey``), same identity, same headers. A caller that leaves
/// does not cancel the request for the others (``SharedFlights``). A query whose credentials
/// have no known owner (its own `Authorization`) is never shared.
struct QueryCoalescingStep: Interceptor {
    /// What makes two queries identical. Hashed without the headers (they rarely differ), and
    /// compared with them.
    struct Key: Hashable, Sendable {
        let readKey: String
        let identity: String
        let headers: HTTPHeaders

        func hash(into hasher: inout Hasher) {
            hasher.combine(readKey)
            hasher.combine(identity)
        }
    }

    let flights = SharedFlights<Key, HTTPResponse, NetworkError>(cancelled: .cancelled)
    /// The first auth interceptor a request meets: it says which requests carry credentials.
    let authentication: AuthInterceptor?
    let tokens: TokenStore.Handle?
    /// Numbers the requests that share another's answer, for their event.
    let pipeline: RequestPipeline.Handle

    func intercept(_ request: HTTPRequest, chain: InterceptorChain) async throws -> HTTPResponse {
        try await coalesced(request, chain)
    }

    private nonisolated(nonsending) func coalesced(_ request: HTTPRequest, _ chain: InterceptorChain) async throws(NetworkError) -> HTTPResponse {
        let (options, settings) = (chain.call.options, chain.call.settings)
        guard let readKey = settings.readKey, settings.stream == nil, !settings.queuesWhenOffline,
              let identity = CacheStep.identity(of: request, url: readKey, options, authentication: authentication, tokens: tokens)
        else {
            return try await chain.proceed(request)
        }
        let key = Key(readKey: readKey, identity: identity, headers: request.headers)
        return try await flights.value(for: key, onJoin: { publishShared(request, chain.call) }) {
            do throws(NetworkError) {
                return .success(try await chain.proceed(request))
            } catch {
                return .failure(error)
            }
        }
    }

    private func publishShared(_ request: HTTPRequest, _ call: ChainCall) {
        let client = call.client
        guard client.events.hasSubscribers else { return }
        client.events.publish(.shared(
            pipeline.nextID(), method: request.method, url: client.redaction.url(request.url), operation: call.options.operationName))
    }
}
