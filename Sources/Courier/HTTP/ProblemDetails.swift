import Foundation

/// An RFC 9457 problem document (`application/problem+json`), as many servers send for an
/// error: set it as the error body type (``APIClient/Configuration/errorBody``) and read it
/// with ``NetworkError/decodedBody(as:decoder:)``.
///
/// Every member is optional, and one of the wrong JSON type is ignored, as the RFC asks; any
/// other member is kept in ``extensions``. Its ``message`` (for ``NetworkError/serverMessage``
/// and ``NetworkError/userMessage``) is the `detail`, else the `title`; its ``code`` the `type`
/// unless that is `about:blank`.
public struct ProblemDetails: Decodable, Sendable, Equatable, ServerErrorMessage {
    /// A URI reference naming the problem type; `nil` means `about:blank`.
    public var type: String?
    /// A short summary of the problem type.
    public var title: String?
    /// The HTTP status the server meant.
    public var status: Int?
    /// An explanation of this occurrence, meant to help the client correct it.
    public var detail: String?
    /// A URI reference naming this occurrence.
    public var instance: String?
    /// The other members (e.g. `errors`, `balance`), by name.
    public var extensions: [String: JSONValue]

    /// Creates a problem document.
    public init(
        type: String? = nil, title: String? = nil, status: Int? = nil, detail: String? = nil, instance: String? = nil,
        extensions: [String: JSONValue] = [:]
    ) {
        self.type = type
        self.title = title
        self.status = status
        self.detail = detail
        self.instance = instance
        self.extensions = extensions
    }

    /// The `detail`, else the `title`.
    public var message: String? { detail ?? title }

    /// The `type`, unless it is `about:blank` (which names no particular problem).
    public var code: String? { type == "about:blank" ? nil : type }

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Reads a JSON object; a standard member of the wrong type is ignored.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        func text(_ name: String) -> String? { try? container.decodeIfPresent(String.self, forKey: Key(stringValue: name)) }
        type = text("type")
        title = text("title")
        detail = text("detail")
        instance = text("instance")
        status = try? container.decodeIfPresent(Int.self, forKey: Key(stringValue: "status"))
        let standard: Set<String> = ["type", "title", "status", "detail", "instance"]
        var extensions: [String: JSONValue] = [:]
        for key in container.allKeys where !standard.contains(key.stringValue) {
            extensions[key.stringValue] = try container.decode(JSONValue.self, forKey: key)
        }
        self.extensions = extensions
    }
}
