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
        #expect(String(reflecting: value) == value.description)   // nothing secret in it
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

    @Test("description redacts secret members at any depth; debugDescription shows them")
    func redacted() throws {
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(#"""
            {"user": "ada", "password": "hunter2", "auth": {"access_token": "tok1", "scopes": ["read"]},
             "items": [{"client_secret": {"v": 1}, "id": 7}], "code": 123}
            """#.utf8))
        #expect(value.description == #"{"auth":{"access_token":"<redacted>","scopes":["read"]},"code":"<redacted>","#
            + #""items":[{"client_secret":"<redacted>","id":7}],"password":"<redacted>","user":"ada"}"#)
        #expect("\(value)" == value.description)
        #expect(!value.description.contains("hunter2") && !value.description.contains("tok1"))
        #expect(String(reflecting: value) == #"{"auth":{"access_token":"tok1","scopes":["read"]},"code":123,"#
            + #""items":[{"client_secret":{"v":1},"id":7}],"password":"hunter2","user":"ada"}"#)
        // A secret word as a value, not a name, is data like any other.
        #expect(JSONValue.array([.string("password")]).description == #"["password"]"#)
    }
}
