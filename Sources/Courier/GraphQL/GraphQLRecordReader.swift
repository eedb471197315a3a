/// Answers an operation from records: walks its selections from the root record, follows
/// references, and rebuilds the response's JSON in the operation's shape, under its aliases.
/// Every record field it reads is noted (`dependencies`), which is what a watcher of the
/// operation depends on.
struct GraphQLRecordReader: Sendable {
    let collector: GraphQLSelectionCollector

    /// A field the records do not hold: the operation cannot be answered from them.
    struct Miss: Error, CustomStringConvertible {
        /// The response path to the missing field (aliases and list indices).
        let path: [String]
        /// The record and the storage key that are missing.
        let record: String
        let field: String
        /// The record fields read up to the miss, the missing one included: a watcher of the
        /// operation hears when it arrives.
        let dependencies: Set<GraphQLRecord.FieldKey>

        var description: String { "the cache lacks \(path.joined(separator: ".")) (\(record) has no \(field))" }
    }

    /// What a read gives: the JSON of `data`, and the record fields read.
    struct Answer: Equatable, Sendable {
        let data: JSONValue
        let dependencies: Set<GraphQLRecord.FieldKey>
    }

    /// `selections` answered from `records`, starting at the record `rootKey` of type `rootType`.
    func read(
        _ selections: [GraphQLExecutableDocument.Selection], rootKey: String, rootType: String, from records: [String: GraphQLRecord]
    ) throws(Miss) -> Answer {
        var dependencies: Set<GraphQLRecord.FieldKey> = []
        let data = try object(rootKey, type: rootType, selections: selections, path: [], records: records, dependencies: &dependencies)
        return Answer(data: data, dependencies: dependencies)
    }

    private func object(
        _ key: String, type: String? = nil, selections: [GraphQLExecutableDocument.Selection], path: [String],
        records: [String: GraphQLRecord], dependencies: inout Set<GraphQLRecord.FieldKey>
    ) throws(Miss) -> JSONValue {
        guard let record = records[key] else {
            // Any of its fields arriving may answer the read.
            for collected in collector.collect(selections, typename: type) {
                dependencies.insert(GraphQLRecord.FieldKey(record: key, field: collector.storageKey(collected.first)))
            }
            throw Miss(path: path, record: key, field: "__typename", dependencies: dependencies)
        }
        let stored: String? = if case .scalar(.string(let name)) = record.fields["__typename"] { name } else { nil }
        let typename = stored ?? type
        var members: [String: JSONValue] = [:]
        for collected in collector.collect(selections, typename: typename) {
            let field = collected.first
            if field.name == "__typename", let typename {
                members[collected.responseKey] = .string(typename)
                continue
            }
            let storageKey = collector.storageKey(field)
            dependencies.insert(GraphQLRecord.FieldKey(record: key, field: storageKey))
            guard let value = record.fields[storageKey] else {
                throw Miss(path: path + [collected.responseKey], record: key, field: storageKey, dependencies: dependencies)
            }
            // A leaf needs no path (only a miss below this field does): no array built for it.
            if case .scalar(let leaf) = value {
                members[collected.responseKey] = leaf
                continue
            }
            members[collected.responseKey] = try self.value(
                value, selections: collected.selections, path: path + [collected.responseKey], records: records, dependencies: &dependencies)
        }
        return .object(members)
    }

    private func value(
        _ stored: GraphQLRecord.Value, selections: [GraphQLExecutableDocument.Selection], path: [String], records: [String: GraphQLRecord],
        dependencies: inout Set<GraphQLRecord.FieldKey>
    ) throws(Miss) -> JSONValue {
        switch stored {
        case .scalar(let value):
            return value
        case .reference(let key):
            return try object(key, selections: selections, path: path, records: records, dependencies: &dependencies)
        case .list(let items):
            var values: [JSONValue] = []
            values.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                values.append(try value(item, selections: selections, path: path + [String(index)], records: records, dependencies: &dependencies))
            }
            return .array(values)
        }
    }
}
