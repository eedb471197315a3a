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

    @Test("an unshared copy has the same text in storage of its own (for a string too long to be stored inline)")
    func copiesIntoStorageOfItsOwn() {
        for text in ["", "v1", "Bearer a-token-longer-than-fifteen-bytes", "caf\u{E9} \u{1F600} and more text"] {
            let copy = text.unsharedCopy()
            #expect(copy == text)
            #expect(Array(copy.utf8) == Array(text.utf8))
            if text.utf8.count > 15 {
                let original = text.withUTF8Bytes { UInt(bitPattern: $0.baseAddress) }
                #expect(copy.withUTF8Bytes { UInt(bitPattern: $0.baseAddress) } != original)
            }
        }
    }
}
