import Testing

@testable import Courier

@Suite struct StringUTF8BytesTests {
    @Test("a string's UTF-8 bytes are read as they are: small, large, non-ASCII, a substring's copy and empty")
    func readsTheBytes() {
        let large = String(repeating: "segment/", count: 20)
        for text in ["", "v1", "https://api.example.com", large, "caf\u{E9}/\u{1F600}", String(large.dropFirst(3))] {
            #expect(text.withUTF8Bytes { Array($0) } == Array(text.utf8))
        }
    }
}
