@testable import Courier

/// The operations the GraphQL tests send to `graphql_server.py`'s schema.
struct HeroQuery: GraphQLQuery {
    static let document = "query Hero($id: ID!) { hero(id: $id) { id name friends { name } } }"
    struct Variables: Encodable, Sendable { let id: String }
    struct Data: Decodable, Sendable {
        struct Friend: Decodable, Sendable { let name: String }
        struct Hero: Decodable, Sendable { let id: String; let name: String; let friends: [Friend?] }
        let hero: Hero?
    }
    let variables: Variables
}

/// A field that fails beside one that does not: partial data with an error and its path.
struct PartialHeroQuery: GraphQLQuery {
    static let document = "query PartialHero { hero(id: \"1\") { name secretIdentity } }"
    struct Data: Decodable, Sendable {
        struct Hero: Decodable, Sendable { let name: String; let secretIdentity: String? }
        let hero: Hero?
    }
}

/// A resolver that takes half a second (coalescing has time to gather), with two variables.
struct SlowHeroQuery: GraphQLQuery {
    static let document = "query SlowHero($id: ID!, $episode: String!) { slowHero(id: $id, episode: $episode) { name } }"
    static let operationName = "SlowHero"
    struct Variables: Encodable, Sendable { let id: String; let episode: String }
    struct Data: Decodable, Sendable { struct Hero: Decodable, Sendable { let name: String }; let slowHero: Hero }
    let variables: Variables
}

/// ``SlowHeroQuery`` with its variables declared (and encoded) in the other order.
struct SlowHeroQueryReordered: GraphQLQuery {
    static let document = SlowHeroQuery.document
    static let operationName = "SlowHero"
    struct Variables: Encodable, Sendable { let episode: String; let id: String }
    typealias Data = SlowHeroQuery.Data
    let variables: Variables
}

/// Answers only to the access token `fresh`; anything else gets `UNAUTHENTICATED`.
struct SecretQuery: GraphQLQuery {
    static let document = "query Secret { secret }"
    struct Data: Decodable, Sendable { let secret: String }
}

struct AddReview: GraphQLMutation {
    static let document = "mutation AddReview($stars: Int!, $text: String!) { addReview(stars: $stars, text: $text) }"
    struct Variables: Encodable, Sendable { let stars: Int; let text: String }
    struct Data: Decodable, Sendable { let addReview: Int }
    let variables: Variables
}

struct Countdown: GraphQLSubscription {
    static let document = "subscription Countdown($start: Int!) { countdown(start: $start) }"
    struct Variables: Encodable, Sendable { let start: Int }
    struct Data: Decodable, Sendable { let countdown: Int }
    let variables: Variables
}

/// Never ends: one tick every 50 ms until the client leaves.
struct Ticks: GraphQLSubscription {
    static let document = "subscription Ticks { ticks }"
    struct Data: Decodable, Sendable { let ticks: Int }
}

/// A field that answers beside one that refuses a stale token: `UNAUTHENTICATED` next to data.
struct PartialSecretQuery: GraphQLQuery {
    static let document = "query PartialSecret { hero(id: \"1\") { name } maybeSecret }"
    struct Data: Decodable, Sendable {
        struct Hero: Decodable, Sendable { let name: String }
        let hero: Hero?
        let maybeSecret: String?
    }
}

/// `after` values, then an error from the server's generator.
struct Failing: GraphQLSubscription {
    static let document = "subscription Failing($after: Int!) { failing(after: $after) }"
    struct Variables: Encodable, Sendable { let after: Int }
    struct Data: Decodable, Sendable { let failing: Int }
    let variables: Variables
}

/// A document the schema refuses (no such field).
struct UnknownFieldSubscription: GraphQLSubscription {
    static let document = "subscription Unknown { nope }"
    struct Data: Decodable, Sendable { let nope: Int }
}

/// Ticks while the connection's token is valid (`graphql_server.py`); then `UNAUTHENTICATED`.
struct SecureTicks: GraphQLSubscription {
    static let document = "subscription SecureTicks { secureTicks }"
    struct Data: Decodable, Sendable { let secureTicks: Int }
}
