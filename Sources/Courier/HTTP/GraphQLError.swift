/// One entry of a GraphQL response's `errors`: its message, where in the document and in the
/// result it arose, and the server's `extensions` (`code`, …).
public struct GraphQLError: Decodable, Sendable, Equatable, CustomStringConvertible {
    /// A place in the document.
    public struct Location: Decodable, Sendable, Equatable {
        /// The line, from 1.
        public let line: Int
        /// The column, from 1.
        public let column: Int

        /// A place at `line` and `column`.
        public init(line: Int, column: Int) {
            self.line = line
            self.column = column
        }
    }

    /// A step of ``path``: a field name or a list index.
    public enum PathElement: Decodable, Sendable, Equatable, CustomStringConvertible {
        /// A field's name (or alias).
        case field(String)
        /// An index in a list.
        case index(Int)

        /// Decodes a string or an integer.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let index = try? container.decode(Int.self) { self = .index(index) } else { self = .field(try container.decode(String.self)) }
        }

        /// The field name, or the index.
        public var description: String {
            switch self {
            case .field(let name): name
            case .index(let index): String(index)
            }
        }
    }

    /// What went wrong, as the server says it.
    public let message: String
    /// Where in the document, when the server says.
    public let locations: [Location]?
    /// Which field of the result it concerns (`hero.friends.1.name`), when it does.
    public let path: [PathElement]?
    /// The server's extra information (`code`, …).
    public let extensions: [String: JSONValue]?

    /// Creates an error (for tests and interceptors).
    public init(message: String, locations: [Location]? = nil, path: [PathElement]? = nil, extensions: [String: JSONValue]? = nil) {
        self.message = message
        self.locations = locations
        self.path = path
        self.extensions = extensions
    }

    /// `extensions.code` (`UNAUTHENTICATED`, `PERSISTED_QUERY_NOT_FOUND`, …), when given.
    public var code: String? { extensions?["code"]?.stringValue }

    /// `message (at hero.name, code X)`.
    public var description: String {
        var details: [String] = []
        if let path, !path.isEmpty { details.append("at " + path.map(\.description).joined(separator: ".")) }
        if let code { details.append("code \(code)") }
        return details.isEmpty ? message : "\(message) (\(details.joined(separator: ", ")))"
    }
}
