/// A GraphQL fragment as a type, to read or write one record in its shape
/// (``ClientGraphQL/read(_:record:)``, ``GraphQLRecordTransaction/write(_:fragment:record:)``):
///
/// ```swift
/// struct HeroDetails: GraphQLFragment {
///     static let document = "fragment HeroDetails on Hero { id name }"
///     struct Data: Decodable, Sendable { let id: String; let name: String }
/// }
/// ```
///
/// The document holds the fragment and any fragment it spreads; it takes no variables.
public protocol GraphQLFragment: Sendable {
    /// What the record decodes to in the fragment's shape.
    associatedtype Data: Decodable & Sendable

    /// The fragment's document.
    static var document: String { get }
    /// Which fragment of the document is this one. Default: the document's only fragment.
    static var fragmentName: String { get }
}

extension GraphQLFragment {
    /// The name of the document's fragment when it has one only; empty otherwise.
    public static var fragmentName: String {
        guard let parsed = try? GraphQLDocumentParser.parse(document, requiringOperation: false), parsed.fragments.count == 1 else { return "" }
        return parsed.fragments.keys.first!
    }
}
