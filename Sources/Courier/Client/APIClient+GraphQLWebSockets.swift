extension APIClient {
    /// The client's GraphQL WebSockets: opened through `components`' chain, with its token
    /// store and its connectivity monitor's view.
    static func graphQLWebSockets(_ components: ClientComponents) -> GraphQLWebSockets {
        let (chain, offline) = (components.chain, components.offline)
        let connectivity = offline.map { offline in
            GraphQLWebSockets.Connectivity(isOffline: { offline.connectivity.value == .offline }, untilOnline: { await offline.untilOnline() })
        }
        return GraphQLWebSockets(tokens: components.tokens, connectivity: connectivity ?? .none) { request, requestOptions, options async throws(NetworkError) in
            try await openWebSocket(for: request, requestOptions: requestOptions, options: options, chain: chain)
        }
    }
}
