/// Tells the connectivity monitor what each call's outcome says (``OfflineComponents/learn(from:)``):
/// the OS saying the device is offline says offline (a refused connection does not), an answer
/// from the network says online. An answer the
/// cache served from storage (a response without metrics) says nothing.
struct ConnectivityStep: Interceptor {
    let offline: OfflineComponents

    func intercept(_ request: HTTPRequest, chain: InterceptorChain) async throws -> HTTPResponse {
        do {
            let response = try await chain.proceed(request)
            if response.metrics != nil { offline.learn(from: .success(response)) }
            return response
        } catch {
            offline.learn(from: .failure(error))
            throw error
        }
    }
}
