import Foundation
import Testing

@testable import Courier

@Suite struct MD5DigestTests {
    @Test(
        "MD5 of RFC 1321's test suite (A.5)",
        arguments: [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
            ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
            ("12345678901234567890123456789012345678901234567890123456789012345678901234567890", "57edf4a22be3c955ac49da2e2107b67a"),
        ])
    func rfc1321(input: String, digest: String) {
        #expect(MD5Digest.hex(of: Data(input.utf8)) == digest)
    }

    @Test("inputs around the block and padding boundaries (55, 56, 63, 64, 65 bytes) and a million bytes")
    func boundaries() {
        let expected = [
            55: "ef1772b6dff9a122358552954ad0df65", 56: "3b0c8ac703f828b04c6c197006d17218", 63: "b06521f39153d618550606be297466d5",
            64: "014842d480b571495a4a0363793f7367", 65: "c743a45e0d2e6a95cb859adae0248435",
        ]
        for (count, digest) in expected {
            #expect(MD5Digest.hex(of: Data(repeating: UInt8(ascii: "a"), count: count)) == digest, "\(count) bytes")
        }
        #expect(MD5Digest.hex(of: Data(repeating: UInt8(ascii: "a"), count: 1_000_000)) == "7707d6ae4e027c70eea2a935c2296f21")
    }
}
