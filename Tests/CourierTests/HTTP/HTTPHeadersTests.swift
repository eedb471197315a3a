import Foundation
import Testing

@testable import Courier

@Suite struct HTTPHeadersTests {

    @Test("lookup ignores ASCII case; names keep the case they were given")
    func caseInsensitiveLookup() {
        let headers: HTTPHeaders = ["Content-Type": "application/json", "X-Request-ID": "42"]
        #expect(headers["content-type"] == "application/json")
        #expect(headers["CONTENT-TYPE"] == "application/json")
        #expect(headers["x-request-id"] == "42")
        #expect(headers["Content-Length"] == nil)
        #expect(headers["Content-Typ"] == nil)
        #expect(headers["Content-Typee"] == nil)
        #expect(headers.contains("X-REQUEST-id"))
        #expect(!headers.contains("X-Request"))
        #expect(headers.map(\.name) == ["Content-Type", "X-Request-ID"])
    }

    @Test("non-ASCII letters are not case-folded in names")
    func onlyASCIICaseFolding() {
        let headers: HTTPHeaders = ["X-É": "1"]
        #expect(headers["x-É"] == "1")
        #expect(headers["x-é"] == nil)
    }

    @Test("fields keep insertion order; repeated names give multiple values")
    func orderAndMultipleValues() {
        var headers = HTTPHeaders()
        #expect(headers.isEmpty)
        headers.add(name: "Accept", value: "application/json")
        headers.add(name: "X-One", value: "1")
        headers.add(name: "accept", value: "text/plain")
        headers.add(name: "X-Two", value: "2")
        headers.add(name: "ACCEPT", value: "*/*")

        #expect(headers.count == 5)
        #expect(!headers.isEmpty)
        #expect(headers["Accept"] == "application/json")
        #expect(headers.values(for: "accept") == ["application/json", "text/plain", "*/*"])
        #expect(headers.values(for: "X-Missing") == [])
        #expect(headers.map(\.name) == ["Accept", "X-One", "accept", "X-Two", "ACCEPT"])
        #expect(Array(headers).map(\.value) == ["application/json", "1", "text/plain", "2", "*/*"])
    }

    @Test("the array and dictionary-literal initializers keep order and repeated names")
    func initializers() {
        let literal: HTTPHeaders = ["B": "1", "A": "2", "b": "3"]
        #expect(literal.map(\.name) == ["B", "A", "b"])
        #expect(literal.values(for: "B") == ["1", "3"])

        let fromArray = HTTPHeaders([("B", "1"), ("A", "2"), ("b", "3")])
        #expect(Array(fromArray) == Array(literal))
        #expect(HTTPHeaders().count == 0)
        let empty: HTTPHeaders = [:]
        #expect(empty.isEmpty)
    }

    @Test("replaceOrAdd and the subscript setter replace every field of the name in place")
    func replace() {
        var headers: HTTPHeaders = ["A": "1", "Cookie": "x=1", "B": "2", "cookie": "y=2", "C": "3"]
        headers.replaceOrAdd(name: "COOKIE", value: "z=3")
        #expect(headers.map(\.name) == ["A", "COOKIE", "B", "C"])
        #expect(headers.values(for: "cookie") == ["z=3"])

        headers["b"] = "20"
        #expect(headers.map(\.name) == ["A", "COOKIE", "b", "C"])
        #expect(headers["B"] == "20")

        headers["D"] = "4"
        headers.replaceOrAdd(name: "E", value: "5")
        #expect(headers.map(\.name) == ["A", "COOKIE", "b", "C", "D", "E"])
        #expect(headers.map(\.value) == ["1", "z=3", "20", "3", "4", "5"])
    }

    @Test("remove and a nil subscript assignment delete every field of the name")
    func remove() {
        var headers: HTTPHeaders = ["A": "1", "X": "a", "B": "2", "x": "b"]
        headers.remove(name: "X")
        #expect(headers.map(\.name) == ["A", "B"])
        headers["a"] = nil
        #expect(headers.map(\.name) == ["B"])
        headers.remove(name: "missing")
        headers["missing"] = nil
        #expect(headers.count == 1)
    }

    @Test("equality: names ignore case, values do not, order only matters within a name")
    func equality() {
        let base: HTTPHeaders = ["Accept": "a", "X-Id": "1", "accept": "b"]
        #expect(base == ["ACCEPT": "a", "x-id": "1", "Accept": "b"])
        #expect(base == ["X-Id": "1", "Accept": "a", "Accept": "b"])
        #expect(base != ["Accept": "b", "X-Id": "1", "Accept": "a"])
        #expect(base != ["Accept": "a", "X-Id": "1"])
        #expect(base != ["Accept": "a", "X-Id": "1", "accept": "B"])
        #expect(base != ["Accept": "a", "X-Id": "1", "X-Other": "b"])
        #expect(HTTPHeaders() == [:])

        let field = HTTPHeaders.Field(name: "Content-Type", value: "text/plain")
        let sameIgnoringCase = HTTPHeaders.Field(name: "content-TYPE", value: "text/plain")
        #expect(field == sameIgnoringCase)
        #expect(field.hashValue == sameIgnoringCase.hashValue)
        #expect(Set([field, sameIgnoringCase]).count == 1)
        #expect(field != HTTPHeaders.Field(name: "Content-Type", value: "TEXT/PLAIN"))
    }

    @Test("valid names (every tchar) and values (with tabs, spaces, UTF-8) pass validation")
    func validHeaders() throws {
        let headers: HTTPHeaders = [
            "Content-Type": "application/json; charset=utf-8",
            "X-Custom_Header.v2": "a\tb c",
            "!#$%&'*+-.^_`|~09azAZ": "value",
            "X-Empty": "",
            "X-Unicode": "café 😀 日本",
        ]
        try headers.validate()
        try HTTPHeaders().validate()
    }

    /// A value that a caller might not want in any log.
    static let secret = "s3cr3t-t0ken"

    @Test(
        "a CR, LF, CRLF or NUL in a value is rejected, naming the header and not echoing the value",
        arguments: [
            "Bearer \(secret)\r",
            "Bearer \(secret)\nX-Evil: 1",
            "Bearer \(secret)\r\nX-Evil: 1",
            "Bearer \(secret)\r\n\r\nGET /admin HTTP/1.1",
            "Bearer \(secret)\0",
            "\n\(secret)",
        ]
    )
    func injectionInValue(value: String) throws {
        let headers: HTTPHeaders = ["Accept": "*/*", "Authorization": value]
        let message = try #require(invalidRequestMessage { () throws(NetworkError) in try headers.validate() })
        #expect(message.contains("Authorization"))
        #expect(!message.contains(Self.secret))
        #expect(!message.contains("X-Evil"))
        #expect(!message.contains("admin"))
        #expect(!message.contains("\r") && !message.contains("\n") && !message.contains("\0"))
    }

    @Test(
        "a name that is not an RFC 9110 token is rejected, naming it escaped",
        arguments: [
            ("X-A\r\nX-Evil", #"X-A\r\nX-Evil"#),
            ("X-A\r", #"X-A\r"#),
            ("X-A\n", #"X-A\n"#),
            ("X-A\0", #"X-A\0"#),
            ("X A", "X A"),
            ("X-A:", "X-A:"),
            ("X(A)", "X(A)"),
            ("X@A", "X@A"),
            ("X\"A", #"X\"A"#),
            ("X-É", "X-É"),
            ("X\tA", #"X\tA"#),
        ]
    )
    func invalidName(name: String, escaped: String) throws {
        let headers: HTTPHeaders = ["Accept": "*/*", name: "fine"]
        let message = try #require(invalidRequestMessage { () throws(NetworkError) in try headers.validate() })
        #expect(message.contains(escaped), "message: \(message)")
        #expect(!message.contains("\r") && !message.contains("\n") && !message.contains("\0"))
    }

    @Test("an empty name is rejected")
    func emptyName() throws {
        let headers: HTTPHeaders = ["": "value"]
        let message = try #require(invalidRequestMessage { () throws(NetworkError) in try headers.validate() })
        #expect(message.contains("empty"))
    }

    @Test("a very long invalid name is cut short in the message")
    func longInvalidName() throws {
        let name = String(repeating: "N", count: 500) + " "
        let headers: HTTPHeaders = [name: "value"]
        let message = try #require(invalidRequestMessage { () throws(NetworkError) in try headers.validate() })
        #expect(message.count < 200)
    }
}
