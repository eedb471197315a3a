import Foundation

/// What a selection set selects on an object of a given type, as the spec's CollectFields works
/// it out: `@skip`/`@include` applied with the variables, fragments kept only when their type
/// condition matches (the type itself, or one of its `possibleTypes`), and the fields of one
/// response key merged. Shared by normalization and reading, so both see the same fields.
struct GraphQLSelectionCollector: Sendable {
    let fragments: [String: GraphQLExecutableDocument.Fragment]
    let variables: [String: JSONValue]
    /// The concrete types of each interface and union.
    let possibleTypes: [String: Set<String>]

    /// One response key and every field selected under it (their selections merge).
    struct CollectedField {
        let responseKey: String
        let fields: [GraphQLExecutableDocument.Field]

        var first: GraphQLExecutableDocument.Field { fields[0] }
        var selections: [GraphQLExecutableDocument.Selection] { fields.flatMap(\.selections) }
    }

    /// The fields `selections` selects on an object whose `__typename` is `typename` (nil when
    /// unknown: then only fragments without a type condition apply), in the order written.
    func collect(_ selections: [GraphQLExecutableDocument.Selection], typename: String?) -> [CollectedField] {
        var order: [String] = []
        var byKey: [String: [GraphQLExecutableDocument.Field]] = [:]
        var visited: Set<String> = []
        func walk(_ selections: [GraphQLExecutableDocument.Selection]) {
            for selection in selections {
                switch selection {
                case .field(let field):
                    guard included(field.directives) else { continue }
                    if byKey[field.responseKey] == nil { order.append(field.responseKey) }
                    byKey[field.responseKey, default: []].append(field)
                case .fragmentSpread(let name, let directives):
                    guard included(directives), !visited.contains(name), let fragment = fragments[name],
                          applies(fragment.typeCondition, to: typename) else { continue }
                    visited.insert(name)
                    walk(fragment.selections)
                case .inlineFragment(let condition, let directives, let selections):
                    guard included(directives), condition.map({ applies($0, to: typename) }) ?? true else { continue }
                    walk(selections)
                }
            }
        }
        walk(selections)
        return order.map { CollectedField(responseKey: $0, fields: byKey[$0]!) }
    }

    /// Whether a type condition holds for an object of `typename`.
    func applies(_ condition: String, to typename: String?) -> Bool {
        guard let typename else { return false }
        return condition == typename || possibleTypes[condition]?.contains(typename) == true
    }

    /// `@skip(if:)` and `@include(if:)`, with the variables.
    private func included(_ directives: [GraphQLExecutableDocument.Directive]) -> Bool {
        for directive in directives where directive.name == "skip" || directive.name == "include" {
            guard let condition = directive.arguments.first(where: { $0.name == "if" }) else { continue }
            let value = resolve(condition.value) == .bool(true)
            if directive.name == "skip" ? value : !value { return false }
        }
        return true
    }

    /// The key a field is stored under: its name, then its arguments sorted by name with the
    /// variables resolved, as canonical JSON (`posts(first:10)`, `user(id:"42")`). An argument
    /// whose variable is not given is left out, as the server leaves it out.
    func storageKey(_ field: GraphQLExecutableDocument.Field) -> String {
        let arguments = field.arguments.compactMap { argument -> (String, String)? in
            if case .variable(let name) = argument.value, variables[name] == nil { return nil }
            return (argument.name, keyText(argument.value))
        }
        guard !arguments.isEmpty else { return field.name }
        let text = arguments.sorted { $0.0 < $1.0 }.map { "\($0.0):\($0.1)" }.joined(separator: ",")
        return "\(field.name)(\(text))"
    }

    /// An argument's value as canonical JSON; an integer literal keeps its digits (a `Double`
    /// would merge ids past 2^53).
    private func keyText(_ value: GraphQLExecutableDocument.Value) -> String {
        switch value {
        case .int(let text): text
        case .list(let items): "[" + items.map(keyText).joined(separator: ",") + "]"
        case .object(let fields):
            "{" + fields.sorted { $0.name < $1.name }.map { "\(JSONValue.string($0.name).canonicalText):\(keyText($0.value))" }.joined(separator: ",") + "}"
        default: resolve(value).canonicalText
        }
    }

    /// A literal as JSON; a variable's value (null when not given).
    func resolve(_ value: GraphQLExecutableDocument.Value) -> JSONValue {
        switch value {
        case .variable(let name): variables[name] ?? .null
        case .int(let text), .float(let text): .number(Double(text) ?? 0)
        case .string(let text), .enumValue(let text): .string(text)
        case .boolean(let flag): .bool(flag)
        case .null: .null
        case .list(let items): .array(items.map(resolve))
        case .object(let fields): .object(Dictionary(fields.map { ($0.name, resolve($0.value)) }, uniquingKeysWith: { $1 }))
        }
    }
}
