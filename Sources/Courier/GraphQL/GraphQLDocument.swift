import Foundation

/// What is worked out once per operation type, not per call: the document's SHA-256 (persisted
/// queries, cache keys), the operation's name, and both as JSON strings for the request body.
struct GraphQLDocument: Sendable {
    /// The SHA-256 of the document, lower-case hex.
    let hash: String
    /// The operation's name (``GraphQLOperation/operationName``); empty for an anonymous one.
    let name: String
    /// The document as a JSON string (quoted, escaped).
    let documentJSON: String
    /// The name as a JSON string.
    let nameJSON: String
    /// The parsed document: what the normalized cache walks to store and read results.
    let parsed: GraphQLExecutableDocument
    /// The operation ``name`` picks in ``parsed``.
    let operation: GraphQLExecutableDocument.Operation
    /// The document as sent with a normalized cache: `__typename` in every selection set but
    /// the root's, as Apollo sends it, so that each object's record key can be worked out.
    let typenamed: Variant

    /// A document's text, as a JSON string, and its SHA-256.
    struct Variant: Sendable {
        let text: String
        let json: String
        let hash: String
    }

    private static let known = Locked<[ObjectIdentifier: Result<GraphQLDocument, NetworkError>]>([:])

    /// `Operation`'s document, worked out on its first call.
    static func of<Operation: GraphQLOperation>(_ type: Operation.Type) throws(NetworkError) -> GraphQLDocument {
        if let document = known.withLock({ $0[ObjectIdentifier(type)] }) { return try document.get() }
        let parsed: (document: GraphQLExecutableDocument, operation: GraphQLExecutableDocument.Operation)
        do throws(NetworkError) {
            parsed = try check(Operation.self)
        } catch {
            known.withLock { $0[ObjectIdentifier(type)] = .failure(error) }
            throw error
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let document: GraphQLDocument
        do {
            let typenamed = GraphQLDocumentPrinter.print(parsed.document, addingTypename: true)
            document = GraphQLDocument(
                hash: GraphQLRequestBody.hash(of: Operation.document), name: Operation.operationName,
                documentJSON: String(decoding: try encoder.encode(Operation.document), as: UTF8.self),
                nameJSON: String(decoding: try encoder.encode(Operation.operationName), as: UTF8.self),
                parsed: parsed.document, operation: parsed.operation,
                typenamed: Variant(
                    text: typenamed, json: String(decoding: try encoder.encode(typenamed), as: UTF8.self),
                    hash: GraphQLRequestBody.hash(of: typenamed)))
        } catch {
            throw .encodingError(underlying: error)
        }
        known.withLock { $0[ObjectIdentifier(type)] = .success(document) }
        return document
    }

    /// Parses `Operation`'s document and checks that it holds the operation its name picks, of
    /// its kind: a mistake is a clear error before anything is sent, not a server's 400.
    private static func check<Operation: GraphQLOperation>(
        _ type: Operation.Type
    ) throws(NetworkError) -> (document: GraphQLExecutableDocument, operation: GraphQLExecutableDocument.Operation) {
        let parsed: GraphQLExecutableDocument
        do {
            parsed = try GraphQLDocumentParser.parse(Operation.document)
        } catch {
            throw .invalidRequest("the document of \(Operation.self) does not parse: \(error)")
        }
        guard let operation = parsed.operation(named: Operation.operationName) else {
            let name = Operation.operationName
            throw .invalidRequest(
                name.isEmpty
                    ? "the document of \(Operation.self) holds several operations: give operationName"
                    : "the document of \(Operation.self) has no operation named \(name)")
        }
        guard operation.kind == Operation.kind else {
            throw .invalidRequest("\(Operation.self) is a \(Operation.kind.rawValue), but its document's operation is a \(operation.kind.rawValue)")
        }
        return (parsed, operation)
    }
}
