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
}

extension VenvServer {
    /// What the GraphQL server has seen so far.
    func stats() async throws -> GraphQLStats {
        let (data, _) = try await URLSession.shared.data(from: baseURL.appendingPathComponent("__stats"))
        return try JSONDecoder().decode(GraphQLStats.self, from: data)
    }
}
