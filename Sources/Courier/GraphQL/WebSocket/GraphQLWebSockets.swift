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

    /// What the sockets need of the connectivity monitor (which sits above GraphQL/).
    struct Connectivity: Sendable {
        /// Whether the monitor says offline now.
        let isOffline: @Sendable () -> Bool
        /// Returns at once unless the monitor says offline; else once it says otherwise (or
        /// the task is cancelled).
        let untilOnline: @Sendable () async -> Void

        /// A client without a monitor: never offline.
        static let none = Connectivity(isOffline: { false }, untilOnline: {})
    }

    /// The session's token store, when the client has one.
    let tokens: TokenStore.Handle?
    let connectivity: Connectivity
    let open: Opener
    // Invariant: the dictionary is read and changed only under the lock (`Locked`).
    private let connections = Locked<[Key: GraphQLWebSocketConnection]>([:])

    init(tokens: TokenStore.Handle?, connectivity: Connectivity, open: @escaping Opener) {
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
