/// The variables of an operation that has none: encoded as nothing (no `variables` member).
public struct GraphQLNoVariables: Encodable, Sendable, Equatable {
    /// No variables.
    public init() {}
}
