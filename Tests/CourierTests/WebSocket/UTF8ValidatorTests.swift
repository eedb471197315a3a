import Testing
@testable import Courier

@Suite("UTF8Validator")
struct UTF8ValidatorTests {
    private func valid(_ bytes: [UInt8]) -> Bool {
        var validator = UTF8Validator()
        return validator.consume(bytes) && validator.isComplete
    }

    @Test("accepts UTF-8, whole or split anywhere")
    func acceptsSplits() {
        let text = Array("aé€😀 zß".utf8)
        #expect(valid(text))
        for cut in 0...text.count {
            var validator = UTF8Validator()
            let first = validator.consume(text[..<cut])
            let second = validator.consume(text[cut...])
            #expect(first && second && validator.isComplete)
        }
    }

    @Test("refuses bad bytes, overlong forms, surrogates, past U+10FFFF, a truncated end")
    func refuses() {
        #expect(!valid([0xFF]))
        #expect(!valid([0xC0, 0xAF]))          // overlong "/"
        #expect(!valid([0xE0, 0x80, 0xAF]))    // overlong
        #expect(!valid([0xED, 0xA0, 0x80]))    // U+D800
        #expect(!valid([0xF4, 0x90, 0x80, 0x80]))  // U+110000
        #expect(!valid([0x80]))                 // lone continuation
        #expect(!valid([0xE2, 0x82]))           // € cut short
        var validator = UTF8Validator()
        // Fails at the first byte that makes it invalid, before the rest arrives.
        let early = validator.consume([0x61, 0xED, 0xA0])
        #expect(!early)
    }
}
