import Foundation
import Testing

@testable import Courier

@Suite struct PasswordCredentialTests {
    @Test("Basic: base64 of user:password in UTF-8 (RFC 7617 §2 and §2.1's examples)")
    func basicAuthorization() throws {
        #expect(try PasswordCredential(user: "Aladdin", password: "open sesame").basicAuthorization() == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        #expect(try PasswordCredential(user: "test", password: "123\u{A3}").basicAuthorization() == "Basic dGVzdDoxMjPCow==")
        #expect(try PasswordCredential(user: "ann", password: "a:b").basicAuthorization() == "Basic " + Data("ann:a:b".utf8).base64EncodedString())
    }

    @Test("a user with ':' or a control character cannot go by Basic: invalidRequest, password not in the message")
    func basicRefusesWhatItCannotCarry() {
        for credential in [PasswordCredential(user: "a:b", password: "pw-1"), PasswordCredential(user: "ann", password: "pw\r\n-1")] {
            do {
                _ = try credential.basicAuthorization()
                Issue.record("no error for \(credential)")
            } catch {
                guard case .invalidRequest(let message) = error else { Issue.record("got \(error)"); return }
                #expect(message.contains("RFC 7617"))
                #expect(!message.contains("pw"))
            }
        }
    }

    @Test("description and dump hide the password")
    func hidesPassword() {
        let credential = PasswordCredential(user: "ann", password: "s3cret")
        #expect(credential.description == "PasswordCredential(user: ann, password: <redacted>)")
        #expect(String(reflecting: credential).contains("s3cret") == false)
        var dumped = ""
        dump(credential, to: &dumped)
        #expect(dumped.contains("ann"))
        #expect(!dumped.contains("s3cret"))
    }
}
