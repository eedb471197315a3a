import Foundation

/// A client's GraphQL WebSockets: one ``GraphQLWebSocketConnection`` per endpoint, protocol
/// choice and signed-in identity, made by the first subscription and shared by the rest.
/// Shared by the copies of ``ClientGraphQL``.
final class GraphQLWebSockets: Sendable {
    /// Which socket a subscription shares.
    struct Key: Hashable, Sendable {
        let url: String
        let protocols: [GraphQLWebSocketProtocol]
        let identity: String?
    }

    /// The session's token store and the connectivity monitor, when the client has them.
    let tokens: TokenStore.Handle?
    let connectivity: OfflineComponents?
    // Invariant: the dictionary is read and changed only under the lock (`Locked`).
    private let connections = Locked<[Key: GraphQLWebSocketConnection]>([:])

    init(tokens: TokenStore.Handle?, connectivity: OfflineComponents?) {
        self.tokens = tokens
        self.connectivity = connectivity
    }

    /// The connection for `key`, made with `environment` when there is none.
    func connection(for key: Key, environment: () -> GraphQLWebSocketConnection.Environment) -> GraphQLWebSocketConnection {
        connections.withLock { connections in
            if let connection = connections[key] { return connection }
            let connection = GraphQLWebSocketConnection(environment())
            connections[key] = connection
            return connection
        }
    }
}
