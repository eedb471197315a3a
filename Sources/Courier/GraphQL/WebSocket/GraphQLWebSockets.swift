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

    /// Opens a WebSocket through the client's chain, with this handshake.
    typealias Opener = @Sendable (HTTPRequest, RequestOptions, WebSocketOptions) async throws(NetworkError) -> WebSocket

    /// The session's token store, when the client has one.
    let tokens: TokenStore.Handle?
    let connectivity: WebSocketConnectivity
    let open: Opener
    // Invariant: the dictionary is read and changed only under the lock (`Locked`).
    private let connections = Locked<[Key: GraphQLWebSocketConnection]>([:])

    init(tokens: TokenStore.Handle?, connectivity: WebSocketConnectivity, open: @escaping Opener) {
        self.tokens = tokens
        self.connectivity = connectivity
        self.open = open
    }

    /// Ends every subscription (``NetworkError/cancelled``) and closes every socket, waiting for
    /// the close handshakes (each bounded by its close timeout); at the client's shutdown.
    func shutDown() async {
        let all = connections.withLock { Array($0.values) }
        await withTaskGroup(of: Void.self) { group in
            for connection in all { group.addTask { await connection.shutDown() } }
        }
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
