import Foundation
import Testing
@testable import Courier

@Suite("SHA1Digest")
struct SHA1DigestTests {
    private func hex(_ text: String) -> String {
        SHA1Digest.hash(of: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    @Test("FIPS 180 vectors, a block boundary and a million a's")
    func vectors() {
        #expect(hex("") == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(hex("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        #expect(hex(String(repeating: "a", count: 1_000_000)) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }
}
