import Foundation
import Testing
@testable import Courier

/// ``CertificatePinner``'s parsing and host matching, as OkHttp's `CertificatePinner` has them.
@Suite struct CertificatePinnerTests {
    /// Three distinct 32-byte digests and their pins.
    static let digestA = Data(repeating: 0xA1, count: 32)
    static let digestB = Data(repeating: 0xB2, count: 32)
    static let digestC = Data(repeating: 0xC3, count: 32)
    static func pin(_ digest: Data) -> String { "sha256/" + digest.base64EncodedString() }

    /// The `invalidRequest` message `pins` are refused with; records an issue if they are not.
    static func refusal(_ pins: [String: [String]], sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        do {
            _ = try CertificatePinner(pins)
            Issue.record("\(pins) was accepted", sourceLocation: sourceLocation)
        } catch .invalidRequest(let message) {
            return message
        } catch {
            Issue.record("expected invalidRequest, got \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }

    @Test("no pins pins no host")
    func emptyPinsNothing() throws {
        #expect(CertificatePinner().isEmpty)
        #expect(CertificatePinner().pins(for: "example.com").isEmpty)
        #expect(try CertificatePinner([:]).isEmpty)
    }

    @Test("sha256/ and libcurl's sha256// spellings are both taken")
    func bothSpellings() throws {
        let pinner = try CertificatePinner([
            "a.example.com": [Self.pin(Self.digestA)],
            "b.example.com": ["sha256//" + Self.digestB.base64EncodedString()],
        ])
        #expect(pinner.pins(for: "a.example.com") == [Self.digestA])
        #expect(pinner.pins(for: "b.example.com") == [Self.digestB])
        #expect(CertificatePinner.describe(Self.digestA) == Self.pin(Self.digestA))
    }

    @Test("a fully qualified host (a trailing dot) has the pins of the host")
    func trailingDot() throws {
        let pinner = try CertificatePinner(["api.example.com": [Self.pin(Self.digestA)]])
        #expect(pinner.pins(for: "api.example.com.") == [Self.digestA])
        #expect(pinner.pins(for: "API.Example.COM.") == [Self.digestA])
    }

    /// A digest whose base64 starts with `/` reads `sha256//…` in OkHttp's spelling too: CI met
    /// one in a key made at test time and refused it as malformed.
    @Test("a digest whose base64 starts with a slash is taken in both spellings")
    func digestStartingWithASlash() throws {
        let digest = Data([0xFF] + [UInt8](repeating: 7, count: 31))
        let encoded = digest.base64EncodedString()
        #expect(encoded.hasPrefix("/"))
        let pinner = try CertificatePinner(["a.example.com": ["sha256/" + encoded], "b.example.com": ["sha256//" + encoded]])
        #expect(pinner.pins(for: "a.example.com") == [digest])
        #expect(pinner.pins(for: "b.example.com") == [digest])
    }

    @Test("malformed pins are refused", arguments: [
        "",
        "sha256/",
        "sha1/" + Data(repeating: 1, count: 20).base64EncodedString(),
        "SHA256/" + Data(repeating: 1, count: 32).base64EncodedString(),
        Data(repeating: 1, count: 32).base64EncodedString(),
        "sha256/not base64!",
        "sha256/" + Data(repeating: 1, count: 31).base64EncodedString(),
        "sha256/" + Data(repeating: 1, count: 33).base64EncodedString(),
        "sha256///" + Data(repeating: 1, count: 32).base64EncodedString(),
    ])
    func malformedPins(_ pin: String) {
        let message = Self.refusal(["example.com": [pin]])
        #expect(message?.contains("certificate pin") == true, "\(message ?? "")")
    }

    @Test("malformed patterns are refused", arguments: [
        "", "*", "**", "*.", "**.", ".example.com", "example.com.", "a..example.com", "*example.com",
        "a*.example.com", "a.*.example.com", "***.example.com", "*.*.example.com", "example.com:443",
        "https://example.com", "exa mple.com", "[::1]",
    ])
    func malformedPatterns(_ pattern: String) {
        let message = Self.refusal([pattern: [Self.pin(Self.digestA)]])
        #expect(message?.contains("pattern") == true, "\(message ?? "")")
    }

    @Test("a pattern with no pins is refused")
    func patternWithoutPins() {
        let message = Self.refusal(["example.com": []])
        #expect(message?.contains("has no pins") == true, "\(message ?? "")")
    }

    @Test("a host pattern pins that host only")
    func exactHost() throws {
        let pinner = try CertificatePinner(["api.example.com": [Self.pin(Self.digestA)]])
        #expect(pinner.pins(for: "api.example.com") == [Self.digestA])
        for host in ["example.com", "www.api.example.com", "api.example.co", "xapi.example.com", "api.example.com.evil"] {
            #expect(pinner.pins(for: host).isEmpty, "\(host)")
        }
    }

    @Test("*.example.com pins exactly one label before example.com")
    func oneLabelWildcard() throws {
        let pinner = try CertificatePinner(["*.example.com": [Self.pin(Self.digestA)]])
        for host in ["a.example.com", "www.example.com", "x-1.example.com"] {
            #expect(pinner.pins(for: host) == [Self.digestA], "\(host)")
        }
        for host in ["example.com", "a.b.example.com", "aexample.com", "a.example.org", "a.example.com.org"] {
            #expect(pinner.pins(for: host).isEmpty, "\(host)")
        }
    }

    @Test("**.example.com pins example.com and any depth under it")
    func anyLabelsWildcard() throws {
        let pinner = try CertificatePinner(["**.example.com": [Self.pin(Self.digestA)]])
        for host in ["example.com", "a.example.com", "a.b.example.com", "a.b.c.d.example.com"] {
            #expect(pinner.pins(for: host) == [Self.digestA], "\(host)")
        }
        for host in ["aexample.com", "example.org", "example.com.org", "com"] {
            #expect(pinner.pins(for: host).isEmpty, "\(host)")
        }
    }

    @Test("pins(for:) unions the pins of every matching pattern, each once")
    func unionAcrossPatterns() throws {
        let pinner = try CertificatePinner([
            "**.example.com": [Self.pin(Self.digestA)],
            "*.example.com": [Self.pin(Self.digestB), Self.pin(Self.digestA)],
            "api.example.com": [Self.pin(Self.digestC)],
            "other.org": [Self.pin(Self.digestC)],
        ])
        #expect(Set(pinner.pins(for: "api.example.com")) == [Self.digestA, Self.digestB, Self.digestC])
        #expect(pinner.pins(for: "api.example.com").count == 3)
        #expect(Set(pinner.pins(for: "www.example.com")) == [Self.digestA, Self.digestB])
        #expect(pinner.pins(for: "a.b.example.com") == [Self.digestA])
        #expect(pinner.pins(for: "example.com") == [Self.digestA])
        #expect(pinner.pins(for: "other.org") == [Self.digestC])
    }

    @Test("hosts and patterns compare ignoring case")
    func caseInsensitive() throws {
        let pinner = try CertificatePinner([
            "API.Example.COM": [Self.pin(Self.digestA)],
            "*.CDN.example.com": [Self.pin(Self.digestB)],
        ])
        #expect(pinner.pins(for: "api.example.com") == [Self.digestA])
        #expect(pinner.pins(for: "Api.EXAMPLE.com") == [Self.digestA])
        #expect(pinner.pins(for: "IMG.cdn.Example.Com") == [Self.digestB])
    }

    @Test("IPv4 addresses are pinnable hosts")
    func ipv4Hosts() throws {
        let pinner = try CertificatePinner(["127.0.0.1": [Self.pin(Self.digestA)]])
        #expect(pinner.pins(for: "127.0.0.1") == [Self.digestA])
        #expect(pinner.pins(for: "127.0.0.2").isEmpty)
    }
}
