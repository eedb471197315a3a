import Foundation
import Testing

@testable import Courier

/// `print(response)`: the status, the body's size and the request's id; the debug form adds the
/// headers and the body, cookies and secret fields redacted.
@Suite struct HTTPResponseDescriptionTests {
    @Test("description: status, body size, request id")
    func description() {
        var response = HTTPResponse(status: 404, body: Data(String(repeating: "x", count: 120).utf8))
        #expect(response.description == "HTTP 404 (120-byte body)")
        response.metrics = RequestMetrics(id: RequestID(7), attempts: 1, redirects: 0, duration: .milliseconds(3))
        #expect("\(response)" == "HTTP 404 (120-byte body, request #7)")
        #expect(HTTPResponse(status: 204).description == "HTTP 204")
    }

    @Test("debugDescription: status, headers with cookies redacted, body with secrets redacted")
    func debugDescription() {
        let response = HTTPResponse(
            status: 200, headers: ["Set-Cookie": "sid=abc123; HttpOnly", "Content-Type": "application/json"],
            body: Data(#"{"access_token":"tok9","ok":true}"#.utf8))
        #expect(String(reflecting: response) == """
            HTTP 200
            Set-Cookie: <redacted>
            Content-Type: application/json

            {"access_token":"<redacted>","ok":true}
            """)
    }
}
