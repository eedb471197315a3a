import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What `graphql_server.py` saw, from its `/__stats`.
struct GraphQLStats: Decodable {
    /// Resolver runs by field (`hero`, `slowHero`, `secret`, `addReview`, `countdown`, …).
    let executions: [String: Int]
    /// Requests that carried a document.
    let documents: Int
    /// Requests that carried only a persisted query's hash.
    let hashOnly: Int
    /// The `Authorization` of each `secret` resolution, in order.
    let authorizations: [String]
    /// Token refreshes answered.
    let refreshes: Int
    /// What each route of `/<route>/graphql` saw.
    let routes: [String: RouteStats]
    /// WebSocket connections, by the first subprotocol offered.
    let sockets: [String: Int]
    /// Every message a WebSocket client sent, in order.
    let socketMessages: [SocketMessage]

    /// One message a WebSocket client sent: its `type` and `id`.
    struct SocketMessage: Decodable, Equatable {
        let type: String?
        let id: String?
    }

    /// What one route saw.
    struct RouteStats: Decodable, Equatable {
        /// Requests, GET and POST.
        let requests: Int
        /// POSTs that carried a document.
        let documents: Int
        /// POSTs without a document.
        let hashOnly: Int
        /// POSTs with a `persistedQuery` extension.
        let persisted: Int
    }

    /// What `route` saw; zeros when it saw nothing.
    func route(_ route: String) -> RouteStats {
        routes[route] ?? RouteStats(requests: 0, documents: 0, hashOnly: 0, persisted: 0)
    }
}

extension VenvServer {
    /// What the GraphQL server has seen so far.
    func stats() async throws -> GraphQLStats {
        let (data, _) = try await URLSession.shared.data(from: baseURL.appendingPathComponent("__stats"))
        return try JSONDecoder().decode(GraphQLStats.self, from: data)
    }

    /// Makes the access token `token` invalid for WebSocket subscriptions (`/__expire`).
    func expire(token: String) async throws {
        var components = URLComponents(url: baseURL.appendingPathComponent("__expire"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "token", value: token)]
        _ = try await URLSession.shared.data(from: components.url!)
    }

    /// Lets `slowHero(episode: "HELD")` answer, now and from then on (`/__release`).
    func releaseHeldQueries() async throws {
        _ = try await URLSession.shared.data(from: baseURL.appendingPathComponent("__release"))
    }

    /// Returns once the server has started `count` runs of `field`'s resolver (the server
    /// waits for it, up to 50 s).
    func waitForExecutions(of field: String, count: Int) async throws {
        var components = URLComponents(url: baseURL.appendingPathComponent("__wait"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "field", value: field), URLQueryItem(name: "count", value: String(count))]
        _ = try await URLSession.shared.data(from: components.url!)
    }
}
