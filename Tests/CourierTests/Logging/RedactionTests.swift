import CourierTesting
import Foundation
import Testing

@testable import Courier

@Suite(.timeLimit(.minutes(5))) struct RedactionTests {
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
        #expect(redaction.body(Data("a=1&api_key=k".utf8), limit: 100) == "<13 bytes, redacted>")
        #expect(redaction.body(Data(#"{"client_secret" : "x""#.utf8), limit: 100) == "<22 bytes, redacted>")   // not valid JSON
        #expect(redaction.body(Data("monkey business: none".utf8), limit: 100) == "monkey business: none")
    }

    @Test("query parameters: API keys, signatures, client secrets and passwords are redacted, case-insensitively")
    func queryParameters() {
        let redaction = Redaction()
        let url = URL(string: "https://cdn.example.com/f?api_key=a&APIKEY=b&key=c&sig=d&Signature=e&client_secret=f"
            + "&password=g&X-Amz-Signature=h&X-Amz-Security-Token=i&new_password=j&page=2&sort_key=name&max_tokens=5")!
        #expect(redaction.url(url) == "https://cdn.example.com/f?api_key=%3Credacted%3E&APIKEY=%3Credacted%3E&key=%3Credacted%3E"
            + "&sig=%3Credacted%3E&Signature=%3Credacted%3E&client_secret=%3Credacted%3E&password=%3Credacted%3E"
            + "&X-Amz-Signature=%3Credacted%3E&X-Amz-Security-Token=%3Credacted%3E&new_password=%3Credacted%3E"
            + "&page=2&sort_key=name&max_tokens=5")
    }

    @Test("common secret names beyond the first list are redacted: pwd, passwd, passphrase, private keys, otp, credentials, x-api-key, session ids, client_assertion")
    func moreSecretNames() {
        let redaction = Redaction()
        let names = [
            "pwd", "passwd", "passphrase", "new_passphrase", "private_key", "privateKey", "ssh_private_key", "otp",
            "credentials", "credential", "x-api-key", "X-API-Key", "sessionid", "sessionId", "session_id", "client_assertion",
        ]
        for name in names {
            #expect(redaction.isSecret(parameter: name), "\(name)")
            let url = URL(string: "https://api.example.com/x?\(name)=s3cret&page=2")!
            #expect(redaction.url(url) == "https://api.example.com/x?\(name)=%3Credacted%3E&page=2")
        }
        #expect(redaction.body(Data(#"{"passwd":"a","client_assertion":"b","otp":123456,"user":"ada"}"#.utf8), limit: 1000)
            == #"{"passwd":"<redacted>","client_assertion":"<redacted>","otp":"<redacted>","user":"ada"}"#)
        for header in ["X-Passphrase", "X-Private-Key", "X-Passwd"] {
            #expect(redaction.value(ofHeader: header, "s3cret") == Redaction.placeholder, "\(header)")
        }
        // Ordinary names stay visible.
        for name in ["page", "option", "top", "keyword", "session_count", "credit"] {
            #expect(!redaction.isSecret(parameter: name), "\(name)")
        }
    }

    @Test("a secret member's value of any type is replaced whole; an escaped name is read decoded; a JSON scalar is itself")
    func jsonValuesOfAnyType() {
        let redaction = Redaction()
        #expect(redaction.body(Data(#"{"token":{"a":[1,{"password":"x"}]},"code":12.5e3,"key":null,"ok":true}"#.utf8), limit: 1000)
            == #"{"token":"<redacted>","code":"<redacted>","key":"<redacted>","ok":true}"#)
        #expect(redaction.body(Data(#"{"pass\u0077ord":"hunter2","n\"ame":"a\"da"}"#.utf8), limit: 1000)
            == #"{"pass\u0077ord":"<redacted>","n\"ame":"a\"da"}"#)
        #expect(redaction.body(Data(#""password""#.utf8), limit: 100) == #""password""#)
        #expect(redaction.body(Data("[]".utf8), limit: 100) == "[]")
    }

    @Test("JSON nested deeper than the scanner goes falls back to the rules for other text, without recursing further")
    func deeplyNestedJSON() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(Redaction().body(Data(deep.utf8), limit: 10) == "[[[[[[[[[[… (200000 bytes)")
        let secret = String(repeating: #"{"a":"#, count: 300) + #"{"password":"x"}"# + String(repeating: "}", count: 300)
        #expect(Redaction().body(Data(secret.utf8), limit: 10) == "<\(secret.utf8.count) bytes, redacted>")
    }

    @Test("text that is not JSON is not taken for it")
    func notJSON() {
        for text in ["{", #"{"a":}"#, #"{"a" 1}"#, "[1,]", "01", "1.", "-", "tru", #""\x""#, #""\u12""#, "{} {}", "[\"\t\"]"] {
            #expect(JSONSecretScanner.redacting(Data(text.utf8), with: Redaction()) == nil, "\(text)")
        }
        for text in ["0", "-1.5E+3", " null ", #""\ud83d\ude00""#, #"{"a":[true,false,null,{}]}"#] {
            #expect(JSONSecretScanner.redacting(Data(text.utf8), with: Redaction()) == Data(text.utf8), "\(text)")
        }
    }

    @Test("a form is redacted field by field only when its Content-Type says it is a form")
    func formFields() {
        let redaction = Redaction()
        let form = Data("user=ada&password=p%26w&Access_Token=t&note=a%3Db&&tail".utf8)
        #expect(redaction.body(form, contentType: "application/x-www-form-urlencoded", limit: 1000)
            == "user=ada&password=<redacted>&Access_Token=<redacted>&note=a%3Db&&tail")
        #expect(redaction.body(form, contentType: "text/plain", limit: 1000) == "<\(form.count) bytes, redacted>")
        #expect(redaction.body(form, limit: 1000) == "<\(form.count) bytes, redacted>")
        #expect(Redaction.off.body(form, contentType: "application/x-www-form-urlencoded", limit: 1000) == String(decoding: form, as: UTF8.self))
    }

    @Test("JSON fields echoing credentials are redacted at any depth")
    func jsonFields() {
        let body = Data(#"""
            {"authorization":"Bearer a","password":"b","client_secret":"c","refresh_token":"d","access_token":"e",
             "session":{"apiKey":"f","signature":"g","oldPassword":"h"},"items":[{"key":"i","name":"ada"}],"max_tokens":5}
            """#.utf8)
        // As sent: the line break, the order and the spacing stay.
        #expect(Redaction().body(body, limit: 1000) == #"""
            {"authorization":"<redacted>","password":"<redacted>","client_secret":"<redacted>","refresh_token":"<redacted>","access_token":"<redacted>",
             "session":{"apiKey":"<redacted>","signature":"<redacted>","oldPassword":"<redacted>"},"items":[{"key":"<redacted>","name":"ada"}],"max_tokens":5}
            """#)
    }

    @Test("headers: any name with token, secret, api key, password, authorization, cookie or signature is redacted")
    func credentialHeaders() {
        let redaction = Redaction()
        for name in [
            "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Refresh-Token", "x-api-key", "X-Goog-Api-Key",
            "X-AUTH-TOKEN", "X-CSRFToken", "X-Amz-Security-Token", "X-Client-Secret", "X-Hub-Signature-256", "X-Apikey",
            "X-User-Password",
        ] {
            #expect(redaction.value(ofHeader: name, "v") == Redaction.placeholder, "\(name)")
        }
        for name in ["Content-Type", "Idempotency-Key", "X-Request-ID", "Accept", "WWW-Authenticate", "ETag"] {
            #expect(redaction.value(ofHeader: name, "v") == "v", "\(name)")
        }
    }

    @Test("the lists are configurable: a custom exact set keeps the default fragments unless they are emptied")
    func configurable() {
        let custom = Redaction(headers: ["X-Tenant"], parameters: ["tenant"])
        #expect(custom.value(ofHeader: "X-Tenant", "t") == Redaction.placeholder)
        #expect(custom.value(ofHeader: "X-Refresh-Token", "t") == Redaction.placeholder)   // the default fragment
        #expect(custom.value(ofHeader: "X-Api-Key", "k") == Redaction.placeholder)
        #expect(custom.url(URL(string: "https://a.example/?tenant=t&key=k&client_secret=s")!)
            == "https://a.example/?tenant=%3Credacted%3E&key=k&client_secret=%3Credacted%3E")
        let exact = Redaction(headers: ["X-Tenant"], headerFragments: [], parameters: ["tenant"], parameterFragments: [])
        #expect(exact.value(ofHeader: "X-Refresh-Token", "t") == "t")
        #expect(exact.body(Data(#"{"password":"p","tenant":"t"}"#.utf8), limit: 100) == #"{"password":"p","tenant":"<redacted>"}"#)
        let fragments = Redaction(headers: [], headerFragments: ["Tenant"], parameters: [], parameterFragments: ["TENANT"])
        #expect(fragments.value(ofHeader: "X-Tenant-Id", "t") == Redaction.placeholder)
        #expect(fragments.url(URL(string: "https://a.example/?tenant_id=t&key=k")!) == "https://a.example/?tenant_id=%3Credacted%3E&key=k")
        #expect(Redaction.off.value(ofHeader: "X-Refresh-Token", "t") == "t")
        #expect(Redaction.off.body(Data("password=p".utf8), limit: 100) == "password=p")
    }

    @Test("a real request at verbose detail: the logger gets no secret from the URL, headers or bodies; the server gets them all")
    func capturedLinesOfARealRequest() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/login", [.json(200, #"""
                {"authorization":"Bearer S3CR3T-r1","access_token":"S3CR3T-r2","refresh_token":"S3CR3T-r3",
                 "user":{"apiKey":"S3CR3T-r4","name":"ivy"}}
                """#, headers: ["X-Refresh-Token": "S3CR3T-r5", "Set-Cookie": "sid=S3CR3T-r6", "X-Session-Token": "S3CR3T-r7"])])
            let logger = CapturingLogger()
            let api = client(server.baseURL, retryPolicy: .never) {
                $0.logging = .init(logger: logger, detail: .verbose)
            }
            let query = "api_key=S3CR3T-q1&apikey=S3CR3T-q2&key=S3CR3T-q3&sig=S3CR3T-q4&signature=S3CR3T-q5"
                + "&client_secret=S3CR3T-q6&password=S3CR3T-q7&page=2"
            let body = #"""
                {"authorization":"S3CR3T-b1","password":"S3CR3T-b2","client_secret":"S3CR3T-b3","refresh_token":"S3CR3T-b4",
                 "access_token":"S3CR3T-b5","name":"ada"}
                """#
            let headers: HTTPHeaders = [
                "X-Refresh-Token": "S3CR3T-h1", "X-Api-Key": "S3CR3T-h2", "X-Auth-Token": "S3CR3T-h3",
                "Authorization": "Bearer S3CR3T-h4", "Cookie": "sid=S3CR3T-h5", "X-Client-Secret": "S3CR3T-h6",
                "Content-Type": "application/json", "X-Trace": "trace-visible",
            ]
            let request = HTTPRequest(
                method: .post, url: URL(string: "/v1/login?" + query, relativeTo: server.baseURL)!.absoluteURL,
                headers: headers, body: Data(body.utf8))
            let response = try await api.data(for: request)
            #expect(response.status == 200)
            await api.shutdown()

            // The server got every secret as sent: redaction touches the log only.
            let sent = try #require(try await server.requests(path: "/v1/login").first)
            #expect(sent.path == "/v1/login?" + query)
            #expect(sent.header("X-Refresh-Token") == "S3CR3T-h1")
            #expect(sent.header("Authorization") == "Bearer S3CR3T-h4")
            #expect(sent.bodyText == body)

            let text = logger.allText
            #expect(logger.lines("request").count == 1)
            #expect(logger.lines("response").count == 1)
            #expect(!text.contains("S3CR3T"), "a secret leaked into the log:\n\(text)")
            // What is not secret stays readable.
            let logged = try #require(logger.lines("request").first?.metadata)
            #expect(logged["url"]?.hasSuffix("&page=2") == true)
            #expect(logged["headers"]?.contains("X-Trace: trace-visible") == true)
            #expect(logged["headers"]?.contains("X-Refresh-Token: <redacted>") == true)
            #expect(logged["body"]?.contains(#""name":"ada""#) == true)
            let answered = try #require(logger.lines("response").first?.metadata)
            #expect(answered["headers"]?.contains("X-Session-Token: <redacted>") == true)
            #expect(answered["body"]?.contains(#""name":"ivy""#) == true)
        }
    }
}
