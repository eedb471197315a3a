import Foundation
import Testing

@testable import Courier

/// `print(request)`: the method, the URL and the body's size; the debug form adds the headers
/// and the body; credentials are redacted in both.
@Suite struct HTTPRequestDescriptionTests {
    private let request = HTTPRequest(
        method: .post, url: URL(string: "https://ada:pw@api.example.com/v1/orders?access_token=tok1&page=2#frag")!,
        headers: ["Content-Type": "application/json", "Authorization": "Bearer s3cr3t", "X-Trace": "t1"],
        body: Data(#"{"quantity":2,"password":"hunter2"}"#.utf8))

    @Test("description: method, redacted URL, body size")
    func description() {
        #expect("\(request)" == "POST https://api.example.com/v1/orders?access_token=%3Credacted%3E&page=2 (35-byte body)")
        #expect(HTTPRequest(url: URL(string: "https://a.example/x")!).description == "GET https://a.example/x")
        var streamed = HTTPRequest(method: .put, url: URL(string: "https://a.example/f")!)
        streamed.bodyStream = HTTPBodyStream(length: 1024, makeReader: { { _ in Data() } })
        #expect(streamed.description == "PUT https://a.example/f (streamed 1024-byte body)")
    }

    @Test("debugDescription: the message, headers redacted, body as sent with its secrets redacted")
    func debugDescription() {
        #expect(String(reflecting: request) == """
            POST https://api.example.com/v1/orders?access_token=%3Credacted%3E&page=2
            Content-Type: application/json
            Authorization: <redacted>
            X-Trace: t1

            {"quantity":2,"password":"<redacted>"}
            """)
        for text in ["\(request)", String(reflecting: request), "\([request])"] {
            for secret in ["s3cr3t", "hunter2", "tok1", "pw@", "frag"] { #expect(!text.contains(secret), "\(secret) in \(text)") }
        }
    }
}
