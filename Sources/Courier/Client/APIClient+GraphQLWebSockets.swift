extension APIClient {
    /// The client's GraphQL WebSockets: opened through `components`' chain, with its token
    /// store and its connectivity monitor's view.
    static func graphQLWebSockets(_ components: ClientComponents) -> GraphQLWebSockets {
        let chain = components.chain
        return GraphQLWebSockets(tokens: components.tokens, connectivity: webSocketConnectivity(components)) { request, requestOptions, options async throws(NetworkError) in
            try await openWebSocket(for: request, requestOptions: requestOptions, options: options, chain: chain)
        }
    }
}
