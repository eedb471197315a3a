/// Parses an executable GraphQL document (operations and fragments; the spec's grammar, section
/// 2) into a ``GraphQLExecutableDocument``, by recursive descent with one token of lookahead.
/// Also checks what a server would refuse before running anything: a document without an
/// operation, two operations or fragments of one name, an anonymous operation beside others, a
/// spread of a fragment the document does not define, and fragments that spread themselves.
struct GraphQLDocumentParser {
    private var lexer: GraphQLLexer
    private var token: GraphQLLexer.Token
    /// How deep the selection sets, values and list types being parsed nest: bounded, so that a
    /// hostile document is an error, not a stack overflow.
    private var depth = 0
    static let maximumDepth = 200

    /// The parsed document, or the first syntax error, with its line and column. Without
    /// `requiringOperation`, a document of fragments only (a ``GraphQLFragment``'s) is one.
    static func parse(_ document: String, requiringOperation: Bool = true) throws(GraphQLSyntaxError) -> GraphQLExecutableDocument {
        var parser = try GraphQLDocumentParser(document)
        return try parser.document(requiringOperation: requiringOperation)
    }

    private init(_ document: String) throws(GraphQLSyntaxError) {
        lexer = GraphQLLexer(document)
        token = try lexer.next()
    }

    // MARK: Definitions

    private mutating func document(requiringOperation: Bool) throws(GraphQLSyntaxError) -> GraphQLExecutableDocument {
        var result = GraphQLExecutableDocument(operations: [], fragments: [:])
        var spreads: [(name: String, token: GraphQLLexer.Token)] = []
        repeat {
            let start = token
            if case .name("fragment") = token.kind {
                let fragment = try fragmentDefinition()
                guard result.fragments[fragment.name] == nil else {
                    throw error("the fragment \(fragment.name) is defined twice", at: start)
                }
                result.fragments[fragment.name] = fragment
            } else {
                let operation = try operationDefinition()
                if let name = operation.name, result.operations.contains(where: { $0.name == name }) {
                    throw error("the operation \(name) is defined twice", at: start)
                }
                result.operations.append(operation)
            }
            spreads.append(contentsOf: pendingSpreads)
            pendingSpreads = []
        } while token.kind != .end
        guard !result.operations.isEmpty || !requiringOperation else { throw error("the document has no operation", at: token) }
        if result.operations.count > 1, result.operations.contains(where: { $0.name == nil }) {
            throw error("an anonymous operation must be the document's only operation", at: token)
        }
        for (name, at) in spreads where result.fragments[name] == nil {
            throw error("the fragment \(name) is spread but not defined", at: at)
        }
        if let problem = Self.fragmentProblem(in: result.fragments) {
            throw GraphQLSyntaxError(message: problem, line: 1, column: 1)
        }
        return result
    }

    /// Spreads seen in the definition being parsed, checked once every fragment is known.
    private var pendingSpreads: [(name: String, token: GraphQLLexer.Token)] = []

    private mutating func operationDefinition() throws(GraphQLSyntaxError) -> GraphQLExecutableDocument.Operation {
        if token.kind == .punctuator("{") {
            return .init(kind: .query, name: nil, variables: [], directives: [], selections: try selectionSet())
        }
        let kind: GraphQLOperationKind
        switch token.kind {
        case .name("query"): kind = .query
        case .name("mutation"): kind = .mutation
        case .name("subscription"): kind = .subscription
        case .name(let word) where ["type", "schema", "interface", "union", "enum", "input", "scalar", "directive", "extend"].contains(word):
            throw error("\(word) defines a schema, which an executable document cannot hold", at: token)
        default:
            throw unexpected("an operation (query, mutation, subscription, { …) or a fragment")
        }
        try advance()
        var name: String?
        if case .name(let text) = token.kind {
            name = text
            try advance()
        }
        let variables = try variableDefinitions()
        let directives = try self.directives(constant: false)
        return .init(kind: kind, name: name, variables: variables, directives: directives, selections: try selectionSet())
    }

    private mutating func fragmentDefinition() throws(GraphQLSyntaxError) -> GraphQLExecutableDocument.Fragment {
        try advance()   // fragment
        guard case .name(let name) = token.kind, name != "on" else { throw unexpected("a fragment's name") }
        try advance()
        guard case .name("on") = token.kind else { throw unexpected("\"on\" and the fragment's type") }
        try advance()
        let type = try self.name("the fragment's type")
        let directives = try self.directives(constant: false)
        return .init(name: name, typeCondition: type, directives: directives, selections: try selectionSet())
    }

    private mutating func variableDefinitions() throws(GraphQLSyntaxError) -> [GraphQLExecutableDocument.VariableDefinition] {
        guard token.kind == .punctuator("(") else { return [] }
        try advance()
        var definitions: [GraphQLExecutableDocument.VariableDefinition] = []
        repeat {
            try expect("$", "a variable ($name)")
            let name = try self.name("a variable's name")
            if definitions.contains(where: { $0.name == name }) { throw error("the variable $\(name) is defined twice", at: token) }
            try expect(":", "\":\" and the variable's type")
            let type = try self.type()
            var defaultValue: GraphQLExecutableDocument.Value?
            if token.kind == .punctuator("=") {
                try advance()
                defaultValue = try value(constant: true)
            }
            let directives = try self.directives(constant: true)
            definitions.append(.init(name: name, type: type, defaultValue: defaultValue, directives: directives))
        } while token.kind != .punctuator(")")
        try advance()
        return definitions
    }

    /// A type reference as written: `Name`, `[Type]`, either with `!`.
    private mutating func type() throws(GraphQLSyntaxError) -> String {
        try enter()
        defer { depth -= 1 }
        var text: String
        if token.kind == .punctuator("[") {
            try advance()
            let inner = try type()
            try expect("]", "\"]\" closing a list type")
            text = "[\(inner)]"
        } else {
            text = try name("a type")
        }
        if token.kind == .punctuator("!") {
            try advance()
            text += "!"
        }
        return text
    }

    // MARK: Selections

    private mutating func selectionSet() throws(GraphQLSyntaxError) -> [GraphQLExecutableDocument.Selection] {
        try enter()
        defer { depth -= 1 }
        try expect("{", "a selection set ({ … })")
        var selections: [GraphQLExecutableDocument.Selection] = []
        repeat {
            selections.append(try selection())
        } while token.kind != .punctuator("}")
        try advance()
        return selections
    }

    private mutating func selection() throws(GraphQLSyntaxError) -> GraphQLExecutableDocument.Selection {
        if token.kind == .punctuator("...") {
            try advance()
            if case .name(let name) = token.kind, name != "on" {
                pendingSpreads.append((name, token))
                try advance()
                return .fragmentSpread(name: name, directives: try directives(constant: false))
            }
            var typeCondition: String?
            if case .name("on") = token.kind {
                try advance()
                typeCondition = try name("the inline fragment's type")
            }
            let directives = try self.directives(constant: false)
            return .inlineFragment(typeCondition: typeCondition, directives: directives, selections: try selectionSet())
        }
        if case .punctuator("}") = token.kind { throw error("a selection set cannot be empty", at: token) }
        var name = try self.name("a field, a fragment spread (...) or \"}\"")
        var alias: String?
        if token.kind == .punctuator(":") {
            try advance()
            alias = name
            name = try self.name("the aliased field's name")
        }
        let arguments = try self.arguments(constant: false)
        let directives = try self.directives(constant: false)
        let selections = token.kind == .punctuator("{") ? try selectionSet() : []
        return .field(.init(alias: alias, name: name, arguments: arguments, directives: directives, selections: selections))
    }

    private mutating func arguments(constant: Bool) throws(GraphQLSyntaxError) -> [GraphQLExecutableDocument.Argument] {
        guard token.kind == .punctuator("(") else { return [] }
        try advance()
        var arguments: [GraphQLExecutableDocument.Argument] = []
        repeat {
            let start = token
            let name = try self.name("an argument's name")
            if arguments.contains(where: { $0.name == name }) { throw error("the argument \(name) is given twice", at: start) }
            try expect(":", "\":\" and the argument's value")
            arguments.append(.init(name: name, value: try value(constant: constant)))
        } while token.kind != .punctuator(")")
        try advance()
        return arguments
    }

    private mutating func directives(constant: Bool) throws(GraphQLSyntaxError) -> [GraphQLExecutableDocument.Directive] {
        var directives: [GraphQLExecutableDocument.Directive] = []
        while token.kind == .punctuator("@") {
            try advance()
            let name = try self.name("a directive's name")
            directives.append(.init(name: name, arguments: try arguments(constant: constant)))
        }
        return directives
    }

    /// A value; `constant` refuses variables (default values, and directives on variables).
    private mutating func value(constant: Bool) throws(GraphQLSyntaxError) -> GraphQLExecutableDocument.Value {
        try enter()
        defer { depth -= 1 }
        let start = token
        switch token.kind {
        case .punctuator("$"):
            guard !constant else { throw error("a constant value cannot be a variable", at: start) }
            try advance()
            return .variable(try name("a variable's name"))
        case .int(let text):
            try advance()
            return .int(text)
        case .float(let text):
            try advance()
            return .float(text)
        case .string(let text):
            try advance()
            return .string(text)
        case .name("true"), .name("false"):
            try advance()
            return .boolean(start.kind == .name("true"))
        case .name("null"):
            try advance()
            return .null
        case .name(let text):
            try advance()
            return .enumValue(text)
        case .punctuator("["):
            try advance()
            var items: [GraphQLExecutableDocument.Value] = []
            while token.kind != .punctuator("]") {
                if token.kind == .end { throw unexpected("\"]\" closing a list") }
                items.append(try value(constant: constant))
            }
            try advance()
            return .list(items)
        case .punctuator("{"):
            try advance()
            var fields: [GraphQLExecutableDocument.Argument] = []
            while token.kind != .punctuator("}") {
                let at = token
                let name = try self.name("an input field's name or \"}\"")
                if fields.contains(where: { $0.name == name }) { throw error("the input field \(name) is given twice", at: at) }
                try expect(":", "\":\" and the input field's value")
                fields.append(.init(name: name, value: try value(constant: constant)))
            }
            try advance()
            return .object(fields)
        default:
            throw unexpected("a value")
        }
    }

    // MARK: Tokens

    private mutating func enter() throws(GraphQLSyntaxError) {
        guard depth < Self.maximumDepth else { throw error("the document nests deeper than \(Self.maximumDepth) levels", at: token) }
        depth += 1
    }

    private mutating func advance() throws(GraphQLSyntaxError) {
        token = try lexer.next()
    }

    private mutating func expect(_ punctuator: String, _ what: String) throws(GraphQLSyntaxError) {
        guard token.kind == .punctuator(punctuator) else { throw unexpected(what) }
        try advance()
    }

    private mutating func name(_ what: String) throws(GraphQLSyntaxError) -> String {
        guard case .name(let name) = token.kind else { throw unexpected(what) }
        try advance()
        return name
    }

    private func unexpected(_ what: String) -> GraphQLSyntaxError {
        error("expected \(what), found \(Self.describe(token.kind))", at: token)
    }

    private func error(_ message: String, at token: GraphQLLexer.Token) -> GraphQLSyntaxError {
        GraphQLSyntaxError(message: message, line: token.line, column: token.column)
    }

    private static func describe(_ kind: GraphQLLexer.Kind) -> String {
        switch kind {
        case .punctuator(let text): "\"\(text)\""
        case .name(let text): "\"\(text)\""
        case .int(let text), .float(let text): "the number \(text)"
        case .string: "a string"
        case .end: "the end of the document"
        }
    }

    /// What is wrong with how the fragments spread each other, if anything: a fragment that
    /// reaches itself, or spreads chained deeper than ``maximumDepth``.
    private static func fragmentProblem(in fragments: [String: GraphQLExecutableDocument.Fragment]) -> String? {
        func spreads(_ selections: [GraphQLExecutableDocument.Selection]) -> [String] {
            selections.flatMap { selection -> [String] in
                switch selection {
                case .field(let field): spreads(field.selections)
                case .fragmentSpread(let name, _): [name]
                case .inlineFragment(_, _, let selections): spreads(selections)
                }
            }
        }
        var finished: Set<String> = []
        func visit(_ name: String, _ path: [String]) -> String? {
            if path.contains(name) { return "the fragment \(name) spreads itself" }
            if path.count >= maximumDepth { return "fragments spread each other deeper than \(maximumDepth) levels" }
            guard !finished.contains(name), let fragment = fragments[name] else { return nil }
            for next in spreads(fragment.selections) {
                if let problem = visit(next, path + [name]) { return problem }
            }
            finished.insert(name)
            return nil
        }
        for name in fragments.keys.sorted() {
            if let problem = visit(name, []) { return problem }
        }
        return nil
    }
}
