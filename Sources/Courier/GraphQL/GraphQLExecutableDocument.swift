/// An executable GraphQL document, parsed (the spec's grammar): its operations and its named
/// fragments, with every selection set, argument and directive as written.
struct GraphQLExecutableDocument: Equatable, Sendable {
    var operations: [Operation]
    var fragments: [String: Fragment]

    struct Operation: Equatable, Sendable {
        var kind: GraphQLOperationKind
        /// Nil for an anonymous operation (and for the `{ … }` shorthand, a query).
        var name: String?
        var variables: [VariableDefinition]
        var directives: [Directive]
        var selections: [Selection]
    }

    struct Fragment: Equatable, Sendable {
        var name: String
        var typeCondition: String
        var directives: [Directive]
        var selections: [Selection]
    }

    struct VariableDefinition: Equatable, Sendable {
        var name: String
        /// The type as written, `[ID!]!` for example.
        var type: String
        var defaultValue: Value?
        var directives: [Directive] = []
    }

    indirect enum Selection: Equatable, Sendable {
        case field(Field)
        case fragmentSpread(name: String, directives: [Directive])
        case inlineFragment(typeCondition: String?, directives: [Directive], selections: [Selection])
    }

    struct Field: Equatable, Sendable {
        var alias: String?
        var name: String
        /// In the order written.
        var arguments: [Argument]
        var directives: [Directive]
        /// Empty for a leaf field.
        var selections: [Selection]

        /// The key the field's value has in a response: its alias, else its name.
        var responseKey: String { alias ?? name }
    }

    struct Argument: Equatable, Sendable {
        var name: String
        var value: Value
    }

    struct Directive: Equatable, Sendable {
        var name: String
        var arguments: [Argument]
    }

    /// A literal or a variable, as written (numbers keep their text).
    indirect enum Value: Equatable, Sendable {
        case variable(String)
        case int(String)
        case float(String)
        case string(String)
        case boolean(Bool)
        case null
        case enumValue(String)
        case list([Value])
        case object([Argument])
    }

    /// The operation `name` picks (`operationName`): the only one when `name` is empty.
    func operation(named name: String) -> Operation? {
        if name.isEmpty { return operations.count == 1 ? operations.first : nil }
        return operations.first { $0.name == name }
    }
}
