/// Splits an operation's `data` into records, as Apollo's normalized cache does: each object
/// with a cache key (`__typename:id` by default) becomes the record of that key, every other
/// object the record of its path from its parent record (`QUERY_ROOT.hero`,
/// `User:42.posts(first:10).0`), and a field is stored under its name and arguments, never its
/// alias. Only the fields that arrived are stored: a response with errors leaves out what it
/// lacks, and nothing else is touched.
struct GraphQLNormalizer: Sendable {
    let collector: GraphQLSelectionCollector
    /// An object's cache key from its `__typename` and its fields; nil stores it by path.
    let cacheKey: @Sendable (_ typename: String, _ object: [String: JSONValue]) -> String?

    /// `__typename:id` when the object has both (an `id` number or string), else nil.
    static let defaultCacheKey: @Sendable (String, [String: JSONValue]) -> String? = { typename, object in
        switch object["id"] {
        case .string(let id): "\(typename):\(id)"
        case .number(let id): "\(typename):\(JSONValue.number(id).canonicalText)"
        default: nil
        }
    }

    /// The records `data` holds, answering `selections` from the root record `rootKey`, whose
    /// type is `rootType` (`Query`: fragments on it apply at the root).
    func normalize(
        _ data: [String: JSONValue], selections: [GraphQLExecutableDocument.Selection], rootKey: String, rootType: String
    ) -> [String: GraphQLRecord] {
        var records: [String: GraphQLRecord] = [:]
        store(data, at: rootKey, selections: selections, typename: data["__typename"]?.stringValue ?? rootType, into: &records)
        // The root's type is known to the reader; stored only when the response named it.
        if data["__typename"] == nil { records[rootKey]?.fields["__typename"] = nil }
        return records
    }

    /// Stores the fields of `object` that `selections` selects into the record `key`.
    private func store(
        _ object: [String: JSONValue], at key: String, selections: [GraphQLExecutableDocument.Selection], typename: String?,
        into records: inout [String: GraphQLRecord]
    ) {
        // Only what this object sets, merged at the end: the same record may be stored again
        // below (an object inside itself), and those fields must stay.
        var fields: [String: GraphQLRecord.Value] = [:]
        if let typename { fields["__typename"] = .scalar(.string(typename)) }
        for collected in collector.collect(selections, typename: typename) {
            guard let value = object[collected.responseKey] else { continue }   // did not arrive
            let storageKey = collector.storageKey(collected.first)
            let selections = collected.selections
            if selections.isEmpty {
                fields[storageKey] = .scalar(value)
            } else {
                fields[storageKey] = self.value(value, path: "\(key).\(storageKey)", selections: selections, into: &records)
            }
        }
        records[key, default: GraphQLRecord(fields: [:])].fields.merge(fields) { $1 }
    }

    /// A value of a field with a selection set: null, an object (stored in its record) or a
    /// list of these.
    private func value(
        _ value: JSONValue, path: String, selections: [GraphQLExecutableDocument.Selection], into records: inout [String: GraphQLRecord]
    ) -> GraphQLRecord.Value {
        switch value {
        case .object(let object):
            let typename = object["__typename"]?.stringValue
            let key = typename.flatMap { cacheKey($0, object) } ?? path
            store(object, at: key, selections: selections, typename: typename, into: &records)
            return .reference(key)
        case .array(let items):
            return .list(items.enumerated().map { index, item in self.value(item, path: "\(path).\(index)", selections: selections, into: &records) })
        default:
            return .scalar(value)
        }
    }
}
