/// A GraphQL operation as a type: its document, its name, its variables and the shape of its
/// `data`. Declare one by adopting ``GraphQLQuery``, ``GraphQLMutation`` or
/// ``GraphQLSubscription``:
///
/// ```swift
/// struct HeroQuery: GraphQLQuery {
///     static let document = "query Hero($id: ID!) { hero(id: $id) { name } }"
///     struct Variables: Encodable, Sendable { let id: String }
///     struct Data: Decodable, Sendable { struct Hero: Decodable, Sendable { let name: String }; let hero: Hero? }
///     let variables: Variables
/// }
/// ```
public protocol GraphQLOperation: Sendable {
    /// The variables, encoded as the request's `variables` object.
    associatedtype Variables: Encodable & Sendable = GraphQLNoVariables
    /// What the response's `data` member decodes to.
    associatedtype Data: Decodable & Sendable

    /// The operation's document (its text, sent as `query`).
    static var document: String { get }
    /// The operation's name, sent as `operationName` (and naming its cache entries). Default:
    /// the name the document gives its operation (`query Hero(…)` → `Hero`); empty for an
    /// anonymous one (then none is sent).
    static var operationName: String { get }
    /// Which kind of operation it is (set by the protocol adopted).
    static var kind: GraphQLOperationKind { get }
    /// This call's variables.
    var variables: Variables { get }
}

extension GraphQLOperation {
    /// The name the document gives its (first) operation; empty for an anonymous one.
    public static var operationName: String { GraphQLRequestBody.operationName(in: document) ?? "" }
}

extension GraphQLOperation where Variables == GraphQLNoVariables {
    /// No variables.
    public var variables: GraphQLNoVariables { GraphQLNoVariables() }
}
