import CourierTesting
import Foundation
import Testing

@testable import Courier

@Suite struct LoggingInterceptorTests {
    /// A request and response stuffed with every kind of secret the default redaction covers.
    private static let secretURL =
        "https://api.example.com/v1/session?access_token=tok1&token=tok2&refresh_token=tok3&code=c0de&password=hunter2&page=2"
    private static let secretBody = Data(#"{"password":"hunter2","user":{"refresh_token":"tok3"},"name":"ada"}"#.utf8)
    private static var secretRequest: HTTPRequest {
        makeTestRequest(secretURL, method: .post, headers: [
            "Authorization": "Bearer s3cr3t",
            "Cookie": "session=abc123",
            "Proxy-Authorization": "Basic cHJveHk6cHJveHlwYXNz",
            "Content-Type": "application/json",
        ], body: secretBody)
    }
    private static var secretResponse: HTTPResponse {
        HTTPResponse(
            status: 200, headers: ["Set-Cookie": "id=zzz; HttpOnly", "Content-Type": "application/json"],
            body: Data(#"{"access_token":"tok9","id_token":"idt0k","client_secret":"cl1ent","ok":true}"#.utf8))
    }
    private static let secrets = [
        "s3cr3t", "abc123", "session=", "cHJveHk6cHJveHlwYXNz", "tok1", "tok2", "tok3", "c0de", "hunter2",
        "zzz", "tok9", "idt0k", "cl1ent",
    ]

    /// Runs a request and its response through `interceptor` (as the pipeline does), as request #3.
    private func exchange(_ interceptor: LoggingInterceptor, _ request: HTTPRequest, _ response: HTTPResponse) {
        let ctx = testContext(id: 3, attempt: 2)
        _ = interceptor.intercept(request, context: ctx)
        _ = interceptor.intercept(response, to: request, context: ctx)
    }

    @Test("with the defaults at verbose detail, no secret reaches the log")
    func noSecretsAtVerbose() {
        let logger = CapturingLogger()
        exchange(LoggingInterceptor(logger: logger, detail: .verbose), Self.secretRequest, Self.secretResponse)

        let text = logger.allText
        #expect(logger.lines.count == 2)
        for secret in Self.secrets {
            #expect(!text.contains(secret), "secret \(secret) leaked into the log:\n\(text)")
        }
        // What is not secret stays visible.
        #expect(text.contains("page=2"))
        #expect(text.contains("ada"))
        #expect(text.contains("application/json"))
        #expect(text.contains(#""ok":true"#))

        // The exact lines.
        #expect(logger.lines.first == CapturingLogger.Line(level: .info, message: "request", metadata: [
            "request": "#3", "attempt": "2", "method": "POST",
            "url": "https://api.example.com/v1/session?access_token=%3Credacted%3E&token=%3Credacted%3E"
                + "&refresh_token=%3Credacted%3E&code=%3Credacted%3E&password=%3Credacted%3E&page=2",
            "headers": "Authorization: <redacted>; Cookie: <redacted>; Proxy-Authorization: <redacted>; "
                + "Content-Type: application/json",
            "body": #"{"password":"<redacted>","user":{"refresh_token":"<redacted>"},"name":"ada"}"#,
        ]))
        #expect(logger.lines.last == CapturingLogger.Line(level: .info, message: "response", metadata: [
            "request": "#3", "attempt": "2", "status": "200",
            "url": "https://api.example.com/v1/session?access_token=%3Credacted%3E&token=%3Credacted%3E"
                + "&refresh_token=%3Credacted%3E&code=%3Credacted%3E&password=%3Credacted%3E&page=2",
            "headers": "Set-Cookie: <redacted>; Content-Type: application/json",
            "body": #"{"access_token":"<redacted>","id_token":"<redacted>","client_secret":"<redacted>","ok":true}"#,
        ]))
    }

    @Test("the request passes through the logging interceptor unchanged, secrets included")
    func requestUnchanged() {
        let logger = CapturingLogger()
        let interceptor = LoggingInterceptor(logger: logger, detail: .verbose)
        let sent = proceeded(interceptor.intercept(Self.secretRequest, context: testContext()))
        #expect(sent?.url == Self.secretRequest.url)
        #expect(sent?.headers == Self.secretRequest.headers)
        #expect(sent?.body == Self.secretBody)
        let response = interceptor.intercept(Self.secretResponse, to: Self.secretRequest, context: testContext())
        #expect(response.headers["Set-Cookie"] == "id=zzz; HttpOnly")
        #expect(response.body == Self.secretResponse.body)
    }

    @Test("secret names are matched case-insensitively in headers, query and JSON")
    func caseInsensitiveRedaction() {
        let logger = CapturingLogger()
        let request = makeTestRequest(
            "https://api.example.com/x?Access_Token=tok1&PASSWORD=hunter2&Page=2", method: .put,
            headers: ["AUTHORIZATION": "Bearer s3cr3t", "cookie": "session=abc123"],
            body: Data(#"[{"Password":"hunter2"},{"nested":[{"TOKEN":"tok2"}]},{"name":"ada"}]"#.utf8))
        exchange(LoggingInterceptor(logger: logger, detail: .verbose), request, HTTPResponse(status: 204))
        let text = logger.allText
        for secret in Self.secrets {
            #expect(!text.contains(secret), "secret \(secret) leaked into the log:\n\(text)")
        }
        #expect(logger.lines.first?.metadata["url"]
            == "https://api.example.com/x?Access_Token=%3Credacted%3E&PASSWORD=%3Credacted%3E&Page=2")
        #expect(logger.lines.first?.metadata["headers"] == "AUTHORIZATION: <redacted>; cookie: <redacted>")
        #expect(logger.lines.first?.metadata["body"]
            == #"[{"Password":"<redacted>"},{"nested":[{"TOKEN":"<redacted>"}]},{"name":"ada"}]"#)
    }

    @Test("a form body is logged as sent with only its secret fields' values redacted")
    func formBodyFieldsRedacted() {
        let logger = CapturingLogger()
        let form = Data("grant_type=password&username=ada&password=hunter2&new%5Fpassword=x%26y&client+secret=s&flag".utf8)
        exchange(
            LoggingInterceptor(logger: logger, detail: .verbose),
            makeTestRequest(
                "https://api.example.com/oauth", method: .post,
                headers: ["Content-Type": "Application/X-WWW-Form-Urlencoded; charset=utf-8"], body: form),
            HTTPResponse(status: 200, body: Data("plain ok".utf8)))
        #expect(logger.lines.first?.metadata["body"]
            == "grant_type=password&username=ada&password=<redacted>&new%5Fpassword=<redacted>&client+secret=<redacted>&flag")
        #expect(logger.lines.last?.metadata["body"] == "plain ok")
        #expect(!logger.allText.contains("hunter2"))
    }

    @Test("a non-JSON, non-form body mentioning a secret name is withheld entirely")
    func otherTextBodyWithheld() {
        let logger = CapturingLogger()
        let text = Data("grant_type=password&username=ada&password=hunter2".utf8)
        exchange(
            LoggingInterceptor(logger: logger, detail: .verbose),
            makeTestRequest("https://api.example.com/oauth", method: .post, headers: ["Content-Type": "text/plain"], body: text),
            HTTPResponse(status: 200, body: Data("plain ok".utf8)))
        #expect(logger.lines.first?.metadata["body"] == "<\(text.count) bytes, redacted>")
        #expect(!logger.allText.contains("hunter2"))
    }

    @Test("a JSON body is logged byte for byte as sent: member order, spacing and escapes kept, secrets replaced")
    func jsonBodyAsSent() {
        let logger = CapturingLogger()
        let sent = #"{ "type": "application/json", "url": "https:\/\/a.example\/x", "z": 1, "a": [1.50, "\u00e9"], "token": {"n": 1} }"#
        exchange(
            LoggingInterceptor(logger: logger, detail: .verbose),
            makeTestRequest("https://api.example.com/items", method: .post, headers: ["Content-Type": "application/json"], body: Data(sent.utf8)),
            HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"b":"application/json","a":2}"#.utf8)))
        #expect(logger.lines.first?.metadata["body"]
            == #"{ "type": "application/json", "url": "https:\/\/a.example\/x", "z": 1, "a": [1.50, "\u00e9"], "token": "<redacted>" }"#)
        #expect(logger.lines.last?.metadata["body"] == #"{"b":"application/json","a":2}"#)
    }

    @Test("malformed JSON falls back to the rules for other text")
    func malformedJSONFallsBack() {
        let redaction = Redaction()
        let mentionsSecret = Data(#"{"password": "hunter2", "name": }"#.utf8)
        #expect(redaction.body(mentionsSecret, contentType: "application/json", limit: 100) == "<\(mentionsSecret.count) bytes, redacted>")
        #expect(redaction.body(Data(#"{"name": "ada",}"#.utf8), contentType: "application/json", limit: 100) == #"{"name": "ada",}"#)
    }

    @Test("minimal detail: method, URL and status only")
    func minimalDetail() {
        let logger = CapturingLogger()
        exchange(LoggingInterceptor(logger: logger, detail: .minimal), Self.secretRequest, Self.secretResponse)
        #expect(logger.lines.count == 2)
        #expect(logger.lines.first.map { Set($0.metadata.keys) } == ["request", "attempt", "method", "url"])
        #expect(logger.lines.last.map { Set($0.metadata.keys) } == ["request", "attempt", "status", "url"])
        #expect(!logger.allText.contains("Content-Type"))
        #expect(!logger.allText.contains("ada"))
    }

    @Test("standard detail (the default): headers but no bodies")
    func standardDetail() {
        let logger = CapturingLogger()
        let interceptor = LoggingInterceptor(logger: logger)
        #expect(interceptor.detail == .standard)
        #expect(interceptor.bodyLimit == 1000)
        #expect(interceptor.redaction == Redaction())
        exchange(interceptor, Self.secretRequest, Self.secretResponse)
        #expect(logger.lines.first.map { Set($0.metadata.keys) } == ["request", "attempt", "method", "url", "headers"])
        #expect(logger.lines.last.map { Set($0.metadata.keys) } == ["request", "attempt", "status", "url", "headers"])
        #expect(logger.lines.last?.metadata["headers"] == "Set-Cookie: <redacted>; Content-Type: application/json")
        #expect(!logger.allText.contains("ada"))
        #expect(!logger.allText.contains("\"ok\""))
    }

    @Test("verbose detail: bodies cut at bodyLimit with a marker giving the full size")
    func verboseTruncation() {
        let logger = CapturingLogger()
        let big = Data(String(repeating: "abcdefghij", count: 500).utf8) // 5000 bytes, not JSON, no secret names
        #expect(big.count == 5000)
        exchange(
            LoggingInterceptor(logger: logger, detail: .verbose),
            makeTestRequest("https://api.example.com/upload", method: .put, body: big),
            HTTPResponse(status: 200, body: big))
        let expected = String(repeating: "abcdefghij", count: 100) + "… (5000 bytes)"
        #expect(logger.lines.first?.metadata["body"] == expected)
        #expect(logger.lines.last?.metadata["body"] == expected)
        #expect(logger.lines.first?.metadata["body"]?.hasPrefix(String(repeating: "abcdefghij", count: 100)) == true)
        #expect(logger.lines.first?.metadata["body"]?.utf8.count == 1000 + "… (5000 bytes)".utf8.count)

        let small = CapturingLogger()
        exchange(
            LoggingInterceptor(logger: small, detail: .verbose, bodyLimit: 25),
            makeTestRequest("https://api.example.com/upload", method: .put, body: big),
            HTTPResponse(status: 200, body: Data("exactly twenty-five bytes".utf8)))
        #expect(small.lines.first?.metadata["body"] == "abcdefghijabcdefghijabcde… (5000 bytes)")
        #expect(small.lines.last?.metadata["body"] == "exactly twenty-five bytes") // at the limit: not cut
    }

    @Test("verbose detail: no request body means no body field; an empty response body is logged empty")
    func verboseEmptyBodies() {
        let logger = CapturingLogger()
        exchange(LoggingInterceptor(logger: logger, detail: .verbose), makeTestRequest("https://api.example.com/x"), HTTPResponse(status: 204))
        #expect(logger.lines.first?.metadata["body"] == nil)
        #expect(logger.lines.last?.metadata["body"] == "")
    }

    @Test("Redaction.off shows everything")
    func redactionOff() {
        let logger = CapturingLogger()
        exchange(LoggingInterceptor(logger: logger, detail: .verbose, redaction: .off), Self.secretRequest, Self.secretResponse)
        let text = logger.allText
        for secret in Self.secrets {
            #expect(text.contains(secret), "\(secret) should be visible with Redaction.off")
        }
        #expect(logger.lines.first?.metadata["url"] == Self.secretURL)
        #expect(logger.lines.first?.metadata["headers"]
            == "Authorization: Bearer s3cr3t; Cookie: session=abc123; Proxy-Authorization: Basic cHJveHk6cHJveHlwYXNz; Content-Type: application/json")
        #expect(logger.lines.first?.metadata["body"] == String(decoding: Self.secretBody, as: UTF8.self))
        #expect(logger.lines.last?.metadata["headers"] == "Set-Cookie: id=zzz; HttpOnly; Content-Type: application/json")
        #expect(!text.contains(Redaction.placeholder))
    }

    @Test("custom redaction sets are used as given (case-insensitively)")
    func customRedaction() {
        let redaction = Redaction(headers: ["X-Api-Key"], headerFragments: [], parameters: ["Sig"], parameterFragments: [])
        #expect(redaction.headers == ["x-api-key"])
        #expect(redaction.parameters == ["sig"])
        #expect(redaction.value(ofHeader: "x-api-key", "k3y") == Redaction.placeholder)
        #expect(redaction.value(ofHeader: "Authorization", "Bearer s3cr3t") == "Bearer s3cr3t")
        #expect(redaction.url(URL(string: "https://cdn.example.com/f?sig=abc&token=t")!)
            == "https://cdn.example.com/f?sig=%3Credacted%3E&token=t")
        #expect(redaction.body(Data(#"{"sig":"abc","password":"p"}"#.utf8), limit: 100) == #"{"sig":"<redacted>","password":"p"}"#)
    }

    @Test("Redaction.url leaves URLs without secrets as they are")
    func redactionURLUntouched() {
        let redaction = Redaction()
        for text in ["https://api.example.com/v1/items", "https://api.example.com/v1/items?page=2&sort=name%20asc", "http://localhost:8080/"] {
            #expect(redaction.url(URL(string: text)!) == text)
        }
        // Percent-encoded parameter names are recognised.
        #expect(redaction.url(URL(string: "https://a.example/?access%5Ftoken=tok1")!) == "https://a.example/?access%5Ftoken=%3Credacted%3E")
    }

    @Test("Redaction.body: binary bodies are not dumped; multi-byte characters are not split")
    func redactionBodyEdgeCases() {
        let redaction = Redaction()
        #expect(redaction.body(Data(), limit: 10) == "")
        #expect(redaction.body(Data([0xFF, 0xFE, 0x00, 0x01]), limit: 100) == "<4 bytes, binary>")
        let accents = Data(String(repeating: "é", count: 600).utf8) // 1200 bytes, 2 per character
        #expect(redaction.body(accents, limit: 1001) == String(repeating: "é", count: 500) + "… (1200 bytes)")
        #expect(redaction.body(accents, limit: 1000) == String(repeating: "é", count: 500) + "… (1200 bytes)")
        // JSON is redacted before it is cut.
        let json = Data(#"{"password":"hunter2","name":"ada"}"#.utf8)
        #expect(redaction.body(json, limit: 10) == #"{"password… (\#(#"{"password":"<redacted>","name":"ada"}"#.utf8.count) bytes)"#)
    }

    @Test("response log level: 2xx/3xx info, 4xx warning, 5xx error")
    func responseLevels() {
        let logger = CapturingLogger()
        let interceptor = LoggingInterceptor(logger: logger, detail: .minimal)
        let request = makeTestRequest("https://api.example.com/x")
        for code in [200, 204, 304, 400, 404, 429, 499, 500, 503, 599] {
            _ = interceptor.intercept(HTTPResponse(status: code), to: request, context: testContext())
        }
        #expect(logger.lines.map(\.level) == [.info, .info, .info, .warning, .warning, .warning, .warning, .error, .error, .error])
        #expect(logger.lines.map { $0.metadata["status"] ?? "" } == ["200", "204", "304", "400", "404", "429", "499", "500", "503", "599"])
        #expect(logger.lines.allSatisfy { $0.message == "response" })
    }

    @Test("a logger at minimumLevel .error gets only 5xx responses")
    func errorLevelLogger() {
        let logger = CapturingLogger(minimumLevel: .error)
        let interceptor = LoggingInterceptor(logger: logger, detail: .verbose)
        let request = makeTestRequest("https://api.example.com/x")
        _ = interceptor.intercept(request, context: testContext())
        for code in [200, 302, 404, 500, 502] {
            _ = interceptor.intercept(HTTPResponse(status: code), to: request, context: testContext())
        }
        #expect(logger.lines.map(\.level) == [.error, .error])
        #expect(logger.lines.map { $0.metadata["status"] } == ["500", "502"])
    }

    @Test("a logger at minimumLevel .warning gets 4xx and 5xx responses but no requests")
    func warningLevelLogger() {
        let logger = CapturingLogger(minimumLevel: .warning)
        let interceptor = LoggingInterceptor(logger: logger)
        let request = makeTestRequest("https://api.example.com/x")
        _ = interceptor.intercept(request, context: testContext())
        for code in [200, 404, 500] {
            _ = interceptor.intercept(HTTPResponse(status: code), to: request, context: testContext())
        }
        #expect(logger.lines.map(\.level) == [.warning, .error])
        #expect(logger.lines.map(\.message) == ["response", "response"])
    }
}
