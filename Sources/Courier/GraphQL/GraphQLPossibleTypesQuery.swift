/// The introspection query that lists every interface's and union's concrete types, for
/// ``ClientGraphQL/loadPossibleTypes(headers:options:)`` (what Apollo's codegen reads from the schema).
struct GraphQLPossibleTypesQuery: GraphQLQuery {
    static let document = "query CourierPossibleTypes { __schema { types { kind name possibleTypes { name } } } }"

    struct Data: Decodable, Sendable {
        struct Schema: Decodable, Sendable {
            struct NamedType: Decodable, Sendable { let name: String }
            struct SchemaType: Decodable, Sendable {
                let kind: String
                let name: String?
                let possibleTypes: [NamedType]?
            }
            let types: [SchemaType]
        }
        let __schema: Schema
    }

    /// Each abstract type (interface, union) with its concrete types.
    static func possibleTypes(in data: Data) -> [String: Set<String>] {
        var types: [String: Set<String>] = [:]
        for type in data.__schema.types where type.kind == "INTERFACE" || type.kind == "UNION" {
            guard let name = type.name, let possible = type.possibleTypes else { continue }
            types[name] = Set(possible.map(\.name))
        }
        return types
    }
}
