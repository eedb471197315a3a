/// Turns on the normalized cache of GraphQL results (``GraphQLConfiguration/normalizedCache``),
/// as Apollo iOS's `ApolloStore`: each object with an identity is stored once, as a record
/// (`Hero:1`), every query that selects it is answered from that record, and
/// ``ClientGraphQL/watch(_:cachePolicy:headers:options:)`` sees every change to it. Leave it off
/// (nil) for servers whose objects have no identities: the document-level cache still works.
public struct GraphQLNormalizedCacheConfiguration: Sendable {
    /// An object's identity within its type, from its fields: nil stores the object under its
    /// path from the record that holds it.
    public typealias CacheKey = @Sendable (_ object: [String: JSONValue]) -> String?

    /// The identity of objects of each type (by `__typename`), where it is not their `id`;
    /// the record is `Type:identity`. Default none.
    public var cacheKeys: [String: CacheKey]
    /// The identity of objects of the other types. Default their `id` (a string or a number).
    public var defaultCacheKey: CacheKey
    /// The concrete types of each interface and union, for fragments on them: a fragment
    /// `... on Character` applies to a `Droid` when `possibleTypes["Character"]` holds `Droid`.
    /// Default none (fragments apply to their own type only).
    public var possibleTypes: [String: Set<String>]
    /// The SQLite file the records are kept in, across launches (created with its directory if
    /// missing), or nil to keep them in memory only. The file holds one identity's records: a
    /// sign-out or another identity deletes them. Written in batches off the cooperative pool;
    /// read lazily (a record is read from it when memory misses it, by the asynchronous reads:
    /// ``ClientGraphQL/fetch(_:cachePolicy:headers:options:)`` and
    /// ``ClientGraphQL/watch(_:cachePolicy:headers:options:)``; ``ClientGraphQL/read(_:)`` sees
    /// memory only). Default nil.
    public var file: String?
    /// The most records kept, or nil for no limit. Past it, after a write, the records that no
    /// root query, mutation or subscription field and no watcher reaches go first, least
    /// recently used first; then the least recently used of the others (never a root record
    /// nor one a watcher read). Evicted records leave the file too. Default nil.
    public var maxRecords: Int?

    /// The `id` field of an object, a string or a number, as its identity.
    public static let idField: CacheKey = { object in
        switch object["id"] {
        case .string(let id): id
        case .number(let id): JSONValue.number(id).canonicalText
        default: nil
        }
    }

    /// Creates the settings; every parameter has its documented default.
    public init(
        cacheKeys: [String: CacheKey] = [:], defaultCacheKey: @escaping CacheKey = idField, possibleTypes: [String: Set<String>] = [:],
        file: String? = nil, maxRecords: Int? = nil
    ) {
        self.file = file
        self.maxRecords = maxRecords
        self.cacheKeys = cacheKeys
        self.defaultCacheKey = defaultCacheKey
        self.possibleTypes = possibleTypes
    }

    /// The record key of an object of `typename`, or nil to store it by path.
    func recordKey(typename: String, object: [String: JSONValue]) -> String? {
        (cacheKeys[typename] ?? defaultCacheKey)(object).map { "\(typename):\($0)" }
    }
}
