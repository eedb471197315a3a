import Foundation
import Testing

@testable import Courier

/// `print(jsonValue)`: compact JSON, members sorted, whole numbers without a fraction.
@Suite struct JSONValueDescriptionTests {
    @Test("a decoded value prints as compact JSON")
    func decoded() throws {
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(#"""
            {"quantity": 2, "price": 9.5, "tags": ["a", "b/c"], "gift": false, "note": null, "big": 12345678901}
            """#.utf8))
        #expect("\(value)" == #"{"big":12345678901,"gift":false,"note":null,"price":9.5,"quantity":2,"tags":["a","b/c"]}"#)
        #expect(String(reflecting: value) == value.description)
        // What it prints reads back as the same value.
        #expect(try JSONDecoder().decode(JSONValue.self, from: Data(value.description.utf8)) == value)
    }

    @Test("strings are escaped as JSON; numbers JSON cannot hold say what they are")
    func edges() throws {
        let text = JSONValue.string("q\"\\\n\t\u{01}é😀")
        #expect(text.description == #""q\"\\\n\t\u0001é😀""#)
        #expect(try JSONDecoder().decode(JSONValue.self, from: Data(text.description.utf8)) == text)
        #expect(JSONValue.number(-0.25).description == "-0.25")
        #expect(JSONValue.number(1e300).description == "1e+300")
        #expect(JSONValue.number(.nan).description == "NaN")
        #expect(JSONValue.number(-.infinity).description == "-Infinity")
        #expect(JSONValue.array([]).description == "[]")
        #expect(JSONValue.object([:]).description == "{}")
    }
}
