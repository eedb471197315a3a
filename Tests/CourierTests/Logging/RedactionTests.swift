import Foundation
import Testing

@testable import Courier

@Suite struct RedactionTests {
    @Test("non UTF8 bodies are never shown")
    func nonUTF8BodiesAreNeverShown() {
        let redaction = Redaction()
        #expect(redaction.body(Data("password=hunter2".utf8) + [0xFF], limit: 1000) == "<17 bytes, binary>")
        #expect(redaction.body(Data("plain text".utf8), limit: 1000) == "plain text")
        #expect(redaction.body(Data("password=hunter2".utf8), limit: 1000) == "<16 bytes, redacted>")
    }

    @Test("urls lose user info and fragment")
    func urlsLoseUserInfoAndFragment() {
        let text = Redaction().url(URL(string: "https://ada:hunter2@api.example.com/x?page=1#access_token=tok1")!)
        #expect(text == "https://api.example.com/x?page=1")
    }

    @Test("location headers are redacted like UR ls")
    func locationHeadersAreRedactedLikeURLs() {
        let redaction = Redaction()
        #expect(redaction.value(ofHeader: "Location", "https://app/cb?code=abc&state=s") == "https://app/cb?code=%3Credacted%3E&state=s")
        #expect(redaction.value(ofHeader: "X-Api-Key", "k") == Redaction.placeholder)
    }

    @Test("text bodies are hidden only when they carry a secret field")
    func textBodiesAreHiddenOnlyWhenTheyCarryASecretField() {
        let redaction = Redaction()
        #expect(redaction.body(Data("scan the barcode".utf8), limit: 100) == "scan the barcode")
        #expect(redaction.body(Data("user=ada&password=x".utf8), limit: 100) == "<19 bytes, redacted>")
        #expect(redaction.body(Data("Token: abc".utf8), limit: 100) == "<10 bytes, redacted>")
    }
}
