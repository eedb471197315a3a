/// One object of a normalized response, stored once: its fields by storage key (the field's
/// name and its arguments, never its alias), as Apollo's `Record`. A record's key is its cache
/// key (`User:42`) or, for an object without one, its path from the record that holds it.
struct GraphQLRecord: Equatable, Sendable {
    var fields: [String: Value]

    /// A field's value: a leaf's JSON as it arrived, or where the objects it selects are stored.
    indirect enum Value: Equatable, Sendable {
        case scalar(JSONValue)
        /// The key of the record of an object.
        case reference(String)
        /// A list of objects (or of lists of them); nulls in it are `.scalar(.null)`.
        case list([Value])

        /// The keys of the records it refers to.
        var references: [String] {
            switch self {
            case .scalar: []
            case .reference(let key): [key]
            case .list(let items): items.flatMap(\.references)
            }
        }
    }

    /// One field of one record: what a write changes and what a reader depends on.
    struct FieldKey: Hashable, Sendable, CustomStringConvertible {
        let record: String
        let field: String

        var description: String { "\(record).\(field)" }
    }

    /// The default names of the root types (a schema may name them otherwise).
    static func rootType(of kind: GraphQLOperationKind) -> String {
        switch kind {
        case .query: "Query"
        case .mutation: "Mutation"
        case .subscription: "Subscription"
        }
    }

    /// The keys of the root records of queries, mutations and subscriptions.
    static func rootKey(of kind: GraphQLOperationKind) -> String {
        switch kind {
        case .query: "QUERY_ROOT"
        case .mutation: "MUTATION_ROOT"
        case .subscription: "SUBSCRIPTION_ROOT"
        }
    }

    /// The keys of the root records, which reference every query's, mutation's and
    /// subscription's results.
    static let rootKeys = ["QUERY_ROOT", "MUTATION_ROOT", "SUBSCRIPTION_ROOT"]

    /// Whether `key` is a root record's.
    static func isRoot(_ key: String) -> Bool { rootKeys.contains(key) }

    /// Merges `incoming` into `records`, field by field (a field that did not arrive keeps its
    /// value); returns the fields whose value changed.
    static func merge(_ incoming: [String: GraphQLRecord], into records: inout [String: GraphQLRecord]) -> Set<FieldKey> {
        var changed: Set<FieldKey> = []
        for (key, record) in incoming {
            var fields = records[key]?.fields ?? [:]
            for (name, value) in record.fields where fields[name] != value {
                fields[name] = value
                changed.insert(FieldKey(record: key, field: name))
            }
            records[key] = GraphQLRecord(fields: fields)
        }
        return changed
    }
}
