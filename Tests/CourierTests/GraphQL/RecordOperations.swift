@testable import Courier

/// Operations on `graphql_server.py`'s heroes for the normalized cache's tests.
struct HeroNameQuery: GraphQLQuery {
    static let document = "query HeroName($id: ID!) { hero(id: $id) { id name } }"
    struct Variables: Encodable, Sendable { let id: String }
    struct Data: Decodable, Sendable, Equatable {
        struct Hero: Decodable, Sendable, Equatable { let id: String; let name: String }
        let hero: Hero?
    }
    let variables: Variables
}

/// The same hero under aliases, with a field the other queries do not select.
struct HeroWithFriendsQuery: GraphQLQuery {
    static let document = "query HeroWithFriends { luke: hero(id: \"1\") { id title: name friends { id name } } }"
    struct Data: Decodable, Sendable, Equatable {
        struct Friend: Decodable, Sendable, Equatable { let id: String; let name: String }
        struct Hero: Decodable, Sendable, Equatable { let id: String; let title: String; let friends: [Friend?] }
        let luke: Hero?
    }
}

struct RenameHero: GraphQLMutation {
    static let document = "mutation RenameHero($id: ID!, $name: String!) { renameHero(id: $id, name: $name) { id name } }"
    struct Variables: Encodable, Sendable { let id: String; let name: String }
    struct Data: Decodable, Sendable { struct Hero: Decodable, Sendable { let id: String; let name: String }; let renameHero: Hero? }
    let variables: Variables
}

struct HeroRenamed: GraphQLSubscription {
    static let document = "subscription HeroRenamed($id: ID!, $names: [String!]!) { heroRenamed(id: $id, names: $names) { id name } }"
    struct Variables: Encodable, Sendable { let id: String; let names: [String] }
    struct Data: Decodable, Sendable { struct Hero: Decodable, Sendable { let id: String; let name: String }; let heroRenamed: Hero }
    let variables: Variables
}

/// A character through its interface: the droid's name comes from `... on Character`.
struct CharacterQuery: GraphQLQuery {
    static let document = "query Character($id: ID!) { character(id: $id) { id ... on Character { name } ... on Droid { primaryFunction } } }"
    struct Variables: Encodable, Sendable { let id: String }
    struct Data: Decodable, Sendable, Equatable {
        struct Character: Decodable, Sendable, Equatable { let id: String; let name: String; let primaryFunction: String? }
        let character: Character?
    }
    let variables: Variables
}
