import Foundation
import Testing

@testable import Courier

/// Decoding straight from a JSON tree gives what `JSONDecoder` gives from its text.
@Suite struct JSONValueDecoderTests {
    private struct Sample: Decodable, Equatable {
        struct Item: Decodable, Equatable { let id: Int; let tags: [String]? }
        let name: String
        let ratio: Double
        let count: UInt8
        let flag: Bool
        let missing: String?
        let null: Int?
        let items: [Item?]
        let matrix: [[Int]]
        let map: [String: Int]
        let date: Date
    }

    private let tree: JSONValue = .object([
        "name": .string("x"), "ratio": .number(0.5), "count": .number(200), "flag": .bool(true), "null": .null,
        "items": .array([.object(["id": .number(1), "tags": .array([.string("a")])]), .null, .object(["id": .number(2)])]),
        "matrix": .array([.array([.number(1), .number(2)]), .array([])]), "map": .object(["a": .number(1)]), "date": .number(12.5),
    ])

    @Test("the same value as JSONDecoder from the tree's text")
    func sameAsJSONDecoder() throws {
        let viaText = try JSONDecoder().decode(Sample.self, from: JSONEncoder().encode(tree))
        #expect(try Sample(from: JSONValueDecoder(tree)) == viaText)
    }

    @Test("the same failures: a missing key, a wrong type, a number that does not fit")
    func failures() {
        guard case .object(var members) = tree else { return }
        members["name"] = nil
        #expect(throws: DecodingError.self) { try Sample(from: JSONValueDecoder(.object(members))) }
        members["name"] = .number(1)
        #expect(throws: DecodingError.self) { try Sample(from: JSONValueDecoder(.object(members))) }
        members["name"] = .string("x")
        members["count"] = .number(256)
        #expect(throws: DecodingError.self) { try Sample(from: JSONValueDecoder(.object(members))) }
        members["count"] = .number(1.5)
        #expect(throws: DecodingError.self) { try Sample(from: JSONValueDecoder(.object(members))) }
    }
}
