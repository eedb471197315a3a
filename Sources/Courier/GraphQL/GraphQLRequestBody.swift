import Foundation

/// The parts of what a GraphQL operation sends (GraphQL over HTTP) that take work: the
/// variables, encoded canonically (sorted keys: equal variables give equal bytes whatever their
/// order, and so the same cache key), the operation's name read from its document, and the
/// document's hash. (``ClientGraphQL`` assembles the body or the query parameters.)
enum GraphQLRequestBody {
    /// The canonical JSON of `variables`; `nil` for an operation without any.
    static func variablesJSON<Variables: Encodable>(_ variables: Variables) throws(NetworkError) -> Data? {
        if Variables.self == GraphQLNoVariables.self { return nil }
        return try canonicalJSON(variables)
    }

    /// `value` as JSON with sorted keys and unescaped slashes: equal values, equal bytes.
    static func canonicalJSON<Value: Encodable>(_ value: Value) throws(NetworkError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(value)
        } catch {
            throw .encodingError(underlying: error)
        }
    }

    /// The name of the first operation `document` defines (`query Hero($id: ID!) {…}` →
    /// `Hero`); `nil` for an anonymous one (`{ hero { name } }`, `query { … }`).
    static func operationName(in document: String) -> String? {
        var text = document[...]
        while true {
            text = text.drop { $0.isWhitespace || $0 == "," }
            guard text.first == "#" else { break }
            text = text.drop { $0 != "\n" }   // a comment
        }
        for keyword in ["query", "mutation", "subscription"] where text.hasPrefix(keyword) {
            let rest = text.dropFirst(keyword.count)
            guard let first = rest.first, first.isWhitespace || first == "(" || first == "{" || first == "@" else { continue }
            let name = rest.drop(while: \.isWhitespace).prefix { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
            guard let initial = name.first, !initial.isNumber else { return nil }
            return String(name)
        }
        return nil
    }

    /// The SHA-256 of `document`, in lower-case hex (persisted queries, cache keys).
    static func hash(of document: String) -> String {
        SHA256Digest.hex(of: Data(document.utf8))
    }
}
