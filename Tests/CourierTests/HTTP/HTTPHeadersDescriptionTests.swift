import Testing

@testable import Courier

/// `print(headers)`: the fields in order, credential values redacted.
@Suite struct HTTPHeadersDescriptionTests {
    @Test("fields in order, repeated names kept, credentials redacted")
    func description() {
        var headers: HTTPHeaders = ["Accept": "application/json", "Authorization": "Bearer s3cr3t"]
        headers.add(name: "Accept", value: "text/plain")
        headers.add(name: "X-Refresh-Token", value: "r1")
        headers.add(name: "Location", value: "https://app.example/cb?code=c0de&state=s")
        #expect("\(headers)" == "[Accept: application/json, Authorization: <redacted>, Accept: text/plain, "
            + "X-Refresh-Token: <redacted>, Location: https://app.example/cb?code=%3Credacted%3E&state=s]")
        #expect(String(reflecting: headers) == headers.description)
        #expect(HTTPHeaders().description == "[]")
        #expect(HTTPHeaders.Field(name: "Cookie", value: "sid=1").description == "Cookie: <redacted>")
    }
}
