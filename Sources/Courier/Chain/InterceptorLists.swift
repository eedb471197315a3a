/// Your ``RequestInterceptor``s and ``ResponseInterceptor``s as one step: the request
/// interceptors in their order on the way out (one that answers, `.respond`, ends the way out),
/// then the response interceptors in their order on the way back, each given the request as
/// last sent.
struct InterceptorLists: Interceptor {
    let requestInterceptors: [any RequestInterceptor]
    let responseInterceptors: [any ResponseInterceptor]

    func intercept(_ request: HTTPRequest, chain: InterceptorChain) async throws -> HTTPResponse {
        let context = chain.context
        var request = request
        for interceptor in requestInterceptors {
            switch try await interceptor.intercept(request, context: context) {
            case .proceed(let changed): request = changed
            case .respond(let answer): return try await intercepted(answer, to: request, context)
            }
        }
        let response = try await chain.proceed(request)
        return try await intercepted(response, to: chain.call.record.sent ?? request, context)
    }

    /// `response` after the response interceptors, in their order.
    private func intercepted(_ response: HTTPResponse, to request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        var response = response
        for interceptor in responseInterceptors {
            response = try await interceptor.intercept(response, to: request, context: context)
        }
        return response
    }
}
