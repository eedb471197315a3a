/// Why a GraphQL document does not parse, and where: the line and column (both from 1, the
/// column counted in characters) of the token that broke the grammar.
struct GraphQLSyntaxError: Error, Equatable, CustomStringConvertible {
    let message: String
    let line: Int
    let column: Int

    var description: String { "GraphQL syntax error at line \(line), column \(column): \(message)" }
}
