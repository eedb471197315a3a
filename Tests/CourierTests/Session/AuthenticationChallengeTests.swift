import Foundation
import Testing

@testable import Courier

@Suite struct AuthenticationChallengeTests {
    private func parsed(_ value: String, sourceLocation: SourceLocation = #_sourceLocation) -> [AuthenticationChallenge] {
        do throws(NetworkError) {
            return try AuthenticationChallenge.parse(value)
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
            return []
        }
    }

    @Test("httpbin's Digest challenge: quoted and bare values, names lowercased")
    func httpbinDigest() {
        let challenges = parsed(
            #"Digest realm="me@kennethreitz.com", nonce="51e2", opaque="7096", qop="auth", algorithm=MD5, stale=False"#)
        #expect(challenges.count == 1)
        #expect(challenges.first?.scheme == "Digest")
        #expect(challenges.first?.parameters.map(\.name) == ["realm", "nonce", "opaque", "qop", "algorithm", "stale"])
        #expect(challenges.first?["realm"] == "me@kennethreitz.com")
        #expect(challenges.first?["algorithm"] == "MD5")
        #expect(challenges.first?["stale"] == "False")
    }

    @Test("quoted strings keep commas, '=' and escaped quotes; spaces around '=' are allowed")
    func quotedStrings() {
        let challenge = parsed(#"Digest realm = "a, b=c \"q\" \\ d" , NONCE="n""#).first
        #expect(challenge?["realm"] == #"a, b=c "q" \ d"#)
        #expect(challenge?["nonce"] == "n")
    }

    @Test("several challenges in one field (RFC 9110 §11.6.1's example), and across fields")
    func severalChallenges() throws {
        let challenges = parsed(#"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple""#)
        #expect(challenges.map(\.scheme) == ["Newauth", "Basic"])
        #expect(challenges.first?["title"] == #"Login to "apps""#)
        #expect(challenges.first?["type"] == "1")
        #expect(challenges.last?["realm"] == "simple")

        let headers = HTTPHeaders([("WWW-Authenticate", #"Digest realm="r", nonce="1", algorithm=SHA-256"#), ("www-authenticate", "Basic realm=\"b\"")])
        #expect(AuthenticationChallenge.challenges(in: headers).map(\.scheme) == ["Digest", "Basic"])
    }

    @Test("a field that does not parse is skipped; the other fields' challenges are kept")
    func malformedFieldIsSkipped() {
        let headers = HTTPHeaders([
            ("WWW-Authenticate", #"Newauth realm="unterminated"#), ("WWW-Authenticate", #"Digest realm="r", nonce="n""#),
        ])
        #expect(AuthenticationChallenge.challenges(in: headers).map(\.scheme) == ["Digest"])
        #expect(DigestChallenge.first(in: headers)?.nonce == "n")
    }

    @Test("a token68, a scheme alone, empty list elements and unknown parameters")
    func otherForms() {
        let challenges = parsed(#"Negotiate abc+/9==, Bearer, , Digest realm="r", nonce="n", future-param=x"#)
        #expect(challenges.map(\.scheme) == ["Negotiate", "Bearer", "Digest"])
        #expect(challenges.first?.token68 == "abc+/9==")
        #expect(challenges[1].parameters.isEmpty && challenges[1].token68 == nil)
        #expect(challenges.last?["future-param"] == "x")
        #expect(parsed("").isEmpty)
    }

    @Test(
        "malformed fields fail with a clear invalidResponse",
        arguments: [
            (#"Digest realm="unterminated"#, "the quoted value of parameter \"realm\" is not terminated"),
            (#"Digest realm="ends in escape\"#, "is not terminated"),
            (#"Digest realm="r", nonce=, opaque="o""#, "parameter \"nonce\" has no value"),
            (#"Digest realm=, nonce="n""#, "expected a parameter name"),   // "realm=" reads as a token68
            (#"Digest realm="r" nonce="n""#, "expected ',' after parameter \"realm\""),
            (#"Digest realm="r", ="n""#, "expected a parameter name"),
            (#"="x""#, "expected an authentication scheme"),
        ])
    func malformed(value: String, problem: String) {
        do {
            let challenges = try AuthenticationChallenge.parse(value)
            Issue.record("parsed \(challenges)")
        } catch {
            guard case .invalidResponse(let message) = error else { Issue.record("got \(error)"); return }
            #expect(message.hasPrefix("malformed WWW-Authenticate field: "))
            #expect(message.contains(problem), "\(message)")
        }
    }
}
