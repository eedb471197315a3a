import Foundation

/// Writes a parsed document back as GraphQL text, on one line; with `addingTypename`, every
/// selection set but an operation's root selects `__typename` (if it does not already), as
/// Apollo's clients send documents, so that a normalized cache knows each object's type.
enum GraphQLDocumentPrinter {
    static func print(_ document: GraphQLExecutableDocument, addingTypename: Bool) -> String {
        var parts = document.operations.map { operation(of: $0, addingTypename) }
        parts += document.fragments.keys.sorted().map { fragment(document.fragments[$0]!, addingTypename) }
        return parts.joined(separator: " ")
    }

    private static func operation(of operation: GraphQLExecutableDocument.Operation, _ typename: Bool) -> String {
        var text = operation.kind.rawValue
        if let name = operation.name { text += " \(name)" }
        if !operation.variables.isEmpty {
            text += "(" + operation.variables.map { variable in
                "$\(variable.name): \(variable.type)" + (variable.defaultValue.map { " = \(value($0))" } ?? "") + directives(variable.directives)
            }.joined(separator: ", ") + ")"
        }
        text += directives(operation.directives)
        return text + " " + selectionSet(operation.selections, typename: false, nested: typename)
    }

    private static func fragment(_ fragment: GraphQLExecutableDocument.Fragment, _ typename: Bool) -> String {
        "fragment \(fragment.name) on \(fragment.typeCondition)\(directives(fragment.directives)) "
            + selectionSet(fragment.selections, typename: typename, nested: typename)
    }

    /// `{ … }`; `typename` adds `__typename` here, `nested` in the selection sets within.
    private static func selectionSet(_ selections: [GraphQLExecutableDocument.Selection], typename: Bool, nested: Bool) -> String {
        var items = selections.map { selection -> String in
            switch selection {
            case .field(let field):
                var text = (field.alias.map { "\($0): " } ?? "") + field.name
                if !field.arguments.isEmpty { text += "(" + arguments(field.arguments) + ")" }
                text += directives(field.directives)
                if !field.selections.isEmpty { text += " " + selectionSet(field.selections, typename: nested, nested: nested) }
                return text
            case .fragmentSpread(let name, let spreadDirectives):
                return "...\(name)\(directives(spreadDirectives))"
            case .inlineFragment(let condition, let fragmentDirectives, let selections):
                return "..." + (condition.map { " on \($0)" } ?? "") + directives(fragmentDirectives) + " "
                    + selectionSet(selections, typename: nested, nested: nested)
            }
        }
        let selectsTypename = selections.contains {
            if case .field(let field) = $0 { return field.name == "__typename" && field.alias == nil && field.directives.isEmpty }
            return false
        }
        if typename, !selectsTypename { items.insert("__typename", at: 0) }
        return "{ " + items.joined(separator: " ") + " }"
    }

    private static func arguments(_ arguments: [GraphQLExecutableDocument.Argument]) -> String {
        arguments.map { "\($0.name): \(value($0.value))" }.joined(separator: ", ")
    }

    private static func directives(_ directives: [GraphQLExecutableDocument.Directive]) -> String {
        directives.map { " @\($0.name)" + ($0.arguments.isEmpty ? "" : "(" + arguments($0.arguments) + ")") }.joined()
    }

    private static func value(_ value: GraphQLExecutableDocument.Value) -> String {
        switch value {
        case .variable(let name): "$\(name)"
        case .int(let text), .float(let text), .enumValue(let text): text
        case .string(let text): JSONValue.string(text).canonicalText
        case .boolean(let flag): flag ? "true" : "false"
        case .null: "null"
        case .list(let items): "[" + items.map(Self.value).joined(separator: ", ") + "]"
        case .object(let fields): "{" + arguments(fields) + "}"
        }
    }
}
