/// What happened to the file the normalized records are kept in
/// (``ClientGraphQL/recordEvents(buffer:)``).
public enum GraphQLRecordsEvent: Sendable, Equatable {
    /// The file was corrupt: it was moved to `movedTo` and a fresh one created. The records in
    /// memory are kept; those only the old file held are gone from the cache (not from disk).
    case storageReset(movedTo: String)
    /// The file failed (the description says how); the records go on in memory.
    case storageFailed(String)
}
