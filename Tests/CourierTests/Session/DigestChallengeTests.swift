import Foundation
import Testing

@testable import Courier

@Suite struct DigestChallengeTests {
    // RFC 7616 §3.9.1's example.
    private static let nonce = "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v"
    private static let opaque = "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"
    private static let clientNonce = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"
    private static let mufasa = PasswordCredential(user: "Mufasa", password: "Circle of Life")

    private static func challenge(_ algorithm: DigestAlgorithm, qop: Bool = true) -> DigestChallenge {
        DigestChallenge(realm: "http-auth@example.org", nonce: nonce, opaque: opaque, algorithm: algorithm, protectsWithQOP: qop)
    }

    private static func response(_ challenge: DigestChallenge, count: Int = 1) -> String {
        challenge.response(
            user: mufasa.user, password: mufasa.password, method: "GET", uri: "/dir/index.html", nonceCount: count, clientNonce: clientNonce)
    }

    private static func digest(_ header: String) -> DigestChallenge? {
        DigestChallenge.first(in: HTTPHeaders([("WWW-Authenticate", header)]))
    }

    @Test("RFC 7616 §3.9.1: the MD5 and SHA-256 responses of the example")
    func rfc7616Examples() {
        #expect(Self.response(Self.challenge(.md5)) == "8ca523f5e9506fed4657c9700eebdbec")
        #expect(Self.response(Self.challenge(.sha256)) == "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1")
    }

    @Test("RFC 2617 §3.5's example, and -sess and RFC 2069 (no qop) against values computed with Python's hashlib")
    func otherForms() {
        let rfc2617 = DigestChallenge(realm: "testrealm@host.com", nonce: "dcd98b7102dd2f0e8b11d0f600bfb0c093")
        #expect(rfc2617.response(
            user: "Mufasa", password: "Circle Of Life", method: "GET", uri: "/dir/index.html", nonceCount: 1, clientNonce: "0a4f113b")
            == "6629fae49393a05397450978507c4ef1")
        #expect(Self.response(Self.challenge(.md5Session), count: 2) == "6914b51e16f9459d9abc967ad41c4599")
        #expect(Self.response(Self.challenge(.sha256Session), count: 2) == "6bb0010aa4bdf46422a798c509ea32e256f27bd37de5cc3bdf8ed51e1d77d650")
        #expect(Self.response(Self.challenge(.md5, qop: false)) == "7b2cc3b30e75b4777ea31027084363fd")
        #expect(Self.response(Self.challenge(.sha256, qop: false)) == "a1306b0595a6c7fe96c448631fb5cfbd5107bd1fe1da729d978dd7446b812363")
    }

    @Test("the Authorization field: RFC 7616's parameters, quoted where the RFC quotes them")
    func authorizationField() {
        let value = Self.challenge(.sha256).authorization(
            for: Self.mufasa, method: "GET", uri: "/dir/index.html", nonceCount: 1, clientNonce: Self.clientNonce)
        #expect(value == #"Digest username="Mufasa", realm="http-auth@example.org", uri="/dir/index.html", algorithm=SHA-256, "#
            + #"nonce="\#(Self.nonce)", nc=00000001, cnonce="\#(Self.clientNonce)", qop=auth, "#
            + #"response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1", opaque="\#(Self.opaque)""#)
        let bare = DigestChallenge(realm: "r", nonce: "n", protectsWithQOP: false)
            .authorization(for: PasswordCredential(user: "a\"b", password: "p"), method: "GET", uri: "/", nonceCount: 1, clientNonce: "c")
        #expect(bare.hasPrefix(#"Digest username="a\"b", realm="r", uri="/", algorithm=MD5, nonce="n", response=""#))
        #expect(!bare.contains("nc=") && !bare.contains("cnonce") && !bare.contains("qop") && !bare.contains("opaque"))
    }

    @Test("a user name beyond printable ASCII goes as username* (UTF-8, percent-encoded); the hash uses the name itself")
    func nonASCIIUser() {
        let challenge = DigestChallenge(realm: "r", nonce: "n")
        let value = challenge.authorization(
            for: PasswordCredential(user: "J\u{E4}s\u{F8}n Doe", password: "p"), method: "GET", uri: "/", nonceCount: 1, clientNonce: "c")
        #expect(value.hasPrefix("Digest username*=UTF-8''J%C3%A4s%C3%B8n%20Doe, realm="))
        #expect(value.contains(#"response="\#(challenge.response(user: "J\u{E4}s\u{F8}n Doe", password: "p", method: "GET", uri: "/", nonceCount: 1, clientNonce: "c"))""#))
    }

    @Test("nonce counts are eight hex digits")
    func nonceCounts() {
        #expect(DigestChallenge.formatted(1) == "00000001")
        #expect(DigestChallenge.formatted(255) == "000000ff")
        #expect(DigestChallenge.formatted(0x1234_5678) == "12345678")
    }

    @Test("the request target: path and query as written, no fragment, '/' for an empty path")
    func requestTarget() {
        #expect(DigestChallenge.requestTarget(of: URL(string: "https://h.example/a/b%20c?x=1&y=%2F#frag")!) == "/a/b%20c?x=1&y=%2F")
        #expect(DigestChallenge.requestTarget(of: URL(string: "https://user@h.example:8443")!) == "/")
        #expect(DigestChallenge.requestTarget(of: URL(string: "http://h.example?q=1")!) == "/?q=1")
    }

    @Test("reading challenges: algorithm and qop lists, stale in any case, the first one Courier can answer")
    func reading() throws {
        let sha = try #require(Self.digest(#"Digest realm="r", nonce="n", qop="auth-int, auth", algorithm=sha-256-SESS, stale=TRUE, opaque="o""#))
        #expect(sha == DigestChallenge(realm: "r", nonce: "n", opaque: "o", algorithm: .sha256Session, protectsWithQOP: true, stale: true))
        let plain = try #require(Self.digest(#"Digest realm="r", nonce="n""#))
        #expect(plain == DigestChallenge(realm: "r", nonce: "n", algorithm: .md5, protectsWithQOP: false, stale: false))
        // The server's order is its preference: the first Digest challenge Courier supports wins.
        let chosen = Self.digest(
            #"Basic realm="b", Digest realm="r", nonce="1", algorithm=SHA-512-256, Digest realm="r", nonce="2", algorithm=SHA-256, Digest realm="r", nonce="3""#)
        #expect(chosen?.nonce == "2")
        #expect(chosen?.algorithm == .sha256)
    }

    @Test("challenges Courier cannot answer: another scheme, an unknown algorithm, only auth-int, -sess without qop")
    func unanswerable() throws {
        #expect(Self.digest(#"Basic realm="b""#) == nil)
        #expect(Self.digest(#"Digest realm="r", nonce="n", algorithm=SHA-512-256, qop="auth""#) == nil)
        #expect(Self.digest(#"Digest realm="r", nonce="n", qop="auth-int""#) == nil)
        #expect(Self.digest(#"Digest realm="r", nonce="n", algorithm=MD5-sess"#) == nil)
    }

    @Test("a Digest challenge without realm or nonce is a clear invalidResponse, skipped when looking for one to answer")
    func missingParameters() throws {
        for (header, missing) in [(#"Digest nonce="n""#, "no realm"), (#"Digest realm="r", qop="auth""#, "no nonce"), (#"Digest realm="r", nonce="""#, "no nonce")] {
            #expect(Self.digest(header) == nil)
            #expect(Self.digest(header + #", Digest realm="r2", nonce="n2""#)?.nonce == "n2")
            let challenge = try #require(try AuthenticationChallenge.parse(header).first)
            do {
                _ = try DigestChallenge(challenge)
                Issue.record("no error for \(header)")
            } catch {
                guard case NetworkError.invalidResponse(let message) = error else { Issue.record("got \(error)"); return }
                #expect(message == "malformed Digest challenge: \(missing)")
            }
        }
    }
}
