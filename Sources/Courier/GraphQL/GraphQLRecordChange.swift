/// One change to the records, as the file replays it (``GraphQLRecordFile/apply(_:)``), in the
/// order the records in memory took them.
enum GraphQLRecordChange: Sendable {
    /// Fields written (merged into what the file holds: a field not written keeps its value).
    case merge([String: GraphQLRecord])
    /// A record removed, or one field of it.
    case evict(String, field: String?)
    /// Every record removed.
    case clear
    /// The records are `identity`'s from now on (nil: signed out): another identity's are
    /// deleted.
    case adopt(String?)
}
