import Foundation
import Testing

@testable import Courier

/// A JWT with `payload` (no real signature: the client never checks one).
func makeJWT(_ payload: String) -> String {
    func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
    return base64URL(#"{"alg":"HS256","typ":"JWT"}"#) + "." + base64URL(payload) + ".c2lnbmF0dXJl"
}

@Suite struct TokensTests {
    @Test("a JWT's exp claim is its expiry")
    func jwtExpiry() throws {
        let tokens = try Tokens(jwt: makeJWT(#"{"sub":"42","exp":1900000000}"#), refreshToken: "r")
        #expect(tokens.expiresAt == Date(timeIntervalSince1970: 1_900_000_000))
    }

    @Test(
        "a malformed JWT is invalidToken, never a crash, and the message never quotes it",
        arguments: ["opaque-token", "a.b", "a.%%%.c", "a.b.c.d", makeJWT("not json"), makeJWT(#"{"sub":"1"}"#), makeJWT(#"{"exp":"soon"}"#), makeJWT(#"{"exp":true}"#)]
    )
    func malformedJWT(token: String) {
        #expect {
            _ = try Tokens(jwt: token, refreshToken: nil)
        } throws: { error in
            guard case NetworkError.invalidToken(let reason) = error else { return false }
            return !reason.contains(token)
        }
    }

    @Test("expires_in counts from the given time")
    func expiresIn() {
        let now = Date(timeIntervalSince1970: 1000)
        #expect(Tokens(accessToken: "a", refreshToken: nil, expiresIn: 3600, now: now).expiresAt == Date(timeIntervalSince1970: 4600))
    }

    @Test("an opaque token needs nothing but itself: no refresh token and no expiry by default, expires_in from now")
    func opaqueTokens() {
        let plain = Tokens(accessToken: "opaque")
        #expect(plain.refreshToken == nil)
        #expect(plain.expiresAt == nil)
        let before = Date()
        let expiring = Tokens(accessToken: "opaque", expiresIn: 60)
        let expiry = expiring.expiresAt ?? .distantPast
        #expect(expiry >= before.addingTimeInterval(60) && expiry <= Date().addingTimeInterval(60))
    }

    @Test("printing tokens shows no token")
    func descriptionHidesTokens() {
        let tokens = Tokens(accessToken: "secret-access", refreshToken: "secret-refresh", expiresAt: nil)
        #expect(!"\(tokens)".contains("secret"))
        #expect(!String(reflecting: tokens).contains("secret"))
    }
}
