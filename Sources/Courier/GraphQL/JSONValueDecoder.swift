/// Decodes a value straight from a ``JSONValue`` tree, as `JSONDecoder` with its default
/// strategies would from the tree's JSON text: what an answer from the records is decoded with,
/// without writing the tree out as JSON and parsing it back.
struct JSONValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ value: JSONValue, codingPath: [any CodingKey] = []) {
        self.value = value
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw mismatch([String: JSONValue].self) }
        return KeyedDecodingContainer(Keyed(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw mismatch([JSONValue].self) }
        return Unkeyed(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(decoder: self) }

    private func mismatch(_ type: Any.Type) -> DecodingError {
        if value == .null {
            return .valueNotFound(type, .init(codingPath: codingPath, debugDescription: "Expected \(type) but found null"))
        }
        return .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "Expected \(type) but found \(value)"))
    }

    fileprivate func bool() throws -> Bool {
        guard case .bool(let flag) = value else { throw mismatch(Bool.self) }
        return flag
    }

    fileprivate func string() throws -> String {
        guard case .string(let text) = value else { throw mismatch(String.self) }
        return text
    }

    fileprivate func double() throws -> Double {
        guard case .number(let number) = value else { throw mismatch(Double.self) }
        return number
    }

    fileprivate func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard case .number(let number) = value else { throw mismatch(type) }
        guard let integer = T(exactly: number) else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "\(number) does not fit in \(type)"))
        }
        return integer
    }

    private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let members: [String: JSONValue]
        let codingPath: [any CodingKey]

        var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }
        func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

        func decoder(for key: Key) throws -> JSONValueDecoder {
            guard let value = members[key.stringValue] else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No value for \(key.stringValue)"))
            }
            return JSONValueDecoder(value, codingPath: codingPath + [key])
        }

        func decodeNil(forKey key: Key) throws -> Bool { try decoder(for: key).value == .null }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder(for: key).bool() }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder(for: key).string() }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder(for: key).double() }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try decoder(for: key).double()) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder(for: key).integer(Int.self) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder(for: key).integer(Int8.self) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder(for: key).integer(Int16.self) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder(for: key).integer(Int32.self) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder(for: key).integer(Int64.self) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder(for: key).integer(UInt.self) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder(for: key).integer(UInt8.self) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder(for: key).integer(UInt16.self) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder(for: key).integer(UInt32.self) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder(for: key).integer(UInt64.self) }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try T(from: decoder(for: key)) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try decoder(for: key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try decoder(for: key).unkeyedContainer() }
        func superDecoder() throws -> any Decoder { JSONValueDecoder(.object(members), codingPath: codingPath) }
        func superDecoder(forKey key: Key) throws -> any Decoder { try decoder(for: key) }
    }

    private struct Unkeyed: UnkeyedDecodingContainer {
        let items: [JSONValue]
        let codingPath: [any CodingKey]
        var currentIndex = 0

        init(items: [JSONValue], codingPath: [any CodingKey]) {
            self.items = items
            self.codingPath = codingPath
        }

        var count: Int? { items.count }
        var isAtEnd: Bool { currentIndex >= items.count }

        private struct Index: CodingKey {
            let intValue: Int?
            var stringValue: String { "Index \(intValue ?? 0)" }
            init(_ index: Int) { intValue = index }
            init?(stringValue: String) { nil }
            init?(intValue: Int) { self.intValue = intValue }
        }

        mutating func next() throws -> JSONValueDecoder {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "Unkeyed container is at end."))
            }
            defer { currentIndex += 1 }
            return JSONValueDecoder(items[currentIndex], codingPath: codingPath + [Index(currentIndex)])
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, items[currentIndex] == .null else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode(_ type: Bool.Type) throws -> Bool { try next().bool() }
        mutating func decode(_ type: String.Type) throws -> String { try next().string() }
        mutating func decode(_ type: Double.Type) throws -> Double { try next().double() }
        mutating func decode(_ type: Float.Type) throws -> Float { Float(try next().double()) }
        mutating func decode(_ type: Int.Type) throws -> Int { try next().integer(Int.self) }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try next().integer(Int8.self) }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try next().integer(Int16.self) }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try next().integer(Int32.self) }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try next().integer(Int64.self) }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try next().integer(UInt.self) }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next().integer(UInt8.self) }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next().integer(UInt16.self) }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next().integer(UInt32.self) }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next().integer(UInt64.self) }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: next()) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try next().container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
        mutating func superDecoder() throws -> any Decoder { try next() }
    }

    private struct Single: SingleValueDecodingContainer {
        let decoder: JSONValueDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }

        func decodeNil() -> Bool { decoder.value == .null }
        func decode(_ type: Bool.Type) throws -> Bool { try decoder.bool() }
        func decode(_ type: String.Type) throws -> String { try decoder.string() }
        func decode(_ type: Double.Type) throws -> Double { try decoder.double() }
        func decode(_ type: Float.Type) throws -> Float { Float(try decoder.double()) }
        func decode(_ type: Int.Type) throws -> Int { try decoder.integer(Int.self) }
        func decode(_ type: Int8.Type) throws -> Int8 { try decoder.integer(Int8.self) }
        func decode(_ type: Int16.Type) throws -> Int16 { try decoder.integer(Int16.self) }
        func decode(_ type: Int32.Type) throws -> Int32 { try decoder.integer(Int32.self) }
        func decode(_ type: Int64.Type) throws -> Int64 { try decoder.integer(Int64.self) }
        func decode(_ type: UInt.Type) throws -> UInt { try decoder.integer(UInt.self) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.integer(UInt8.self) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.integer(UInt16.self) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.integer(UInt32.self) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.integer(UInt64.self) }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: decoder) }
    }
}
