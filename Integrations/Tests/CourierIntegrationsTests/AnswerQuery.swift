import Courier

/// A query whose answer a scripted transport can give.
struct AnswerQuery: GraphQLQuery {
    static let document = "query Answer { answer }"
    struct Data: Decodable, Sendable { let answer: Int }
}
