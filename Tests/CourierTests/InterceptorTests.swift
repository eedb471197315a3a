import CourierTesting
import Foundation
import Testing

@testable import Courier

// MARK: - Test logger

/// One line a ``CapturingLogger`` received.
private struct LogLine: Sendable, Equatable {
    let level: LogLevel
    let message: String
    let metadata: [String: String]
}

/// Records every line it is given (it does not filter by level itself, so the tests see exactly
/// what the code under test chose to log).
private final class CapturingLogger: NetworkLogger {
    let minimumLevel: LogLevel
    private let storage = Locked<[LogLine]>([])

    init(minimumLevel: LogLevel = .trace) {
        self.minimumLevel = minimumLevel
    }

    func log(_ level: LogLevel, _ message: String, metadata: [String: String]) {
        storage.withLock { $0.append(LogLine(level: level, message: message, metadata: metadata)) }
    }

    var lines: [LogLine] { storage.withLock { $0 } }

    /// Everything captured, as one string: levels, messages, metadata keys and values.
    var allText: String {
        lines.map { line in
            ([String(describing: line.level), line.message]
                + line.metadata.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] })
                .joined(separator: "\n")
        }.joined(separator: "\n")
    }
}

// MARK: - Helpers

private func makeRequest(
    _ urlString: String, method: HTTPMethod = .get, headers: HTTPHeaders = [:], body: Data? = nil
) -> HTTPRequest {
    HTTPRequest(method: method, url: URL(string: urlString)!, headers: headers, body: body)
}

private func context(
    id: UInt64 = 7, attempt: Int = 1, requiresAuth: Bool = true, logger: (any NetworkLogger)? = nil
) -> RequestContext {
    RequestContext(id: RequestID(id), attempt: attempt, requiresAuth: requiresAuth, logger: logger)
}

/// The request an interception went on with, or nil (recording an issue) if it answered.
private func proceeded(_ interception: RequestInterception, sourceLocation: SourceLocation = #_sourceLocation) -> HTTPRequest? {
    switch interception {
    case .proceed(let request):
        return request
    case .respond(let response):
        Issue.record("expected .proceed, got .respond(\(response.status))", sourceLocation: sourceLocation)
        return nil
    }
}

/// The error `body` threw, or nil if it returned.
private func thrown<T>(_ body: () async throws(NetworkError) -> T) async -> NetworkError? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error
    }
}

/// The interceptor suites below are nested here, so `--filter InterceptorTests` selects them all.
@Suite("Interceptors")
struct InterceptorTests {}

// MARK: - SecurityGuard

extension InterceptorTests {
    @Suite("SecurityGuard")
    struct SecurityGuardTests {
        private func securityMessage(_ guardian: SecurityGuard, _ url: String, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
            do throws(NetworkError) {
                _ = try guardian.intercept(makeRequest(url), context: context())
                Issue.record("expected \(url) to be refused", sourceLocation: sourceLocation)
                return nil
            } catch {
                guard case .securityError(let message) = error else {
                    Issue.record("expected .securityError, got \(error)", sourceLocation: sourceLocation)
                    return nil
                }
                return message
            }
        }

        private func allows(_ guardian: SecurityGuard, _ url: String, sourceLocation: SourceLocation = #_sourceLocation) {
            do throws(NetworkError) {
                let request = makeRequest(url, headers: ["Accept": "application/json"])
                let sent = proceeded(try guardian.intercept(request, context: context()), sourceLocation: sourceLocation)
                #expect(sent?.url == request.url, sourceLocation: sourceLocation)
                #expect(sent?.headers == request.headers, sourceLocation: sourceLocation)
            } catch {
                Issue.record("expected \(url) to be allowed, got \(error)", sourceLocation: sourceLocation)
            }
        }

        @Test("plain HTTP to a public host is refused with a message naming the host")
        func refusesPlainHTTP() {
            let message = securityMessage(SecurityGuard(), "http://example.com/x")
            #expect(message == "refused plain http request to example.com: HTTPS is required")
        }

        @Test(
            "HTTPS and loopback hosts are allowed",
            arguments: [
                "https://example.com", "https://example.com/x?y=1", "HTTPS://EXAMPLE.COM/x",
                "http://127.0.0.1:8080", "http://127.5.6.7", "http://127.255.255.255/a",
                "http://localhost", "http://LOCALHOST:3000/x", "http://[::1]:80", "http://[::1]/",
            ])
        func allowsSecureOrLoopback(url: String) {
            allows(SecurityGuard(), url)
        }

        @Test(
            "plain HTTP to non-loopback hosts is refused",
            arguments: [
                ("http://127.0.0.1.evil.com", "127.0.0.1.evil.com"),
                ("http://10.0.0.1", "10.0.0.1"),
                ("http://192.168.1.1:8080/admin", "192.168.1.1"),
                ("http://128.0.0.1", "128.0.0.1"),
                ("http://localhost.evil.com", "localhost.evil.com"),
                ("http://evillocalhost", "evillocalhost"),
                ("http://127.0.0.256", "127.0.0.256"),
                ("http://[::2]", "::2"),
            ])
        func refusesNonLoopback(url: String, host: String) {
            let message = securityMessage(SecurityGuard(), url)
            #expect(message == "refused plain http request to \(host): HTTPS is required")
        }

        @Test("schemes other than http and https are refused")
        func refusesOtherSchemes() {
            #expect(securityMessage(SecurityGuard(), "ftp://127.0.0.1/file")
                == "refused plain ftp request to 127.0.0.1: HTTPS is required")
            #expect(securityMessage(SecurityGuard(), "ws://example.com/socket")
                == "refused plain ws request to example.com: HTTPS is required")
        }

        @Test("insecureHostsAllowed lets the listed hosts (any case) use plain HTTP, and only them")
        func insecureHostsAllowed() {
            var guardian = SecurityGuard(insecureHostsAllowed: [])
            guardian.insecureHostsAllowed = ["Sidecar.Internal", "10.0.0.5"]   // set after init too
            allows(guardian, "http://sidecar.internal:9000/metrics")
            allows(guardian, "http://SIDECAR.INTERNAL/")
            allows(guardian, "http://10.0.0.5/")
            allows(guardian, "http://localhost/") // loopback still allowed
            #expect(securityMessage(guardian, "http://other.internal/")
                == "refused plain http request to other.internal: HTTPS is required")
            #expect(securityMessage(guardian, "http://10.0.0.6/")
                == "refused plain http request to 10.0.0.6: HTTPS is required")
            #expect(securityMessage(guardian, "http://sidecar.internal.evil.com/")
                == "refused plain http request to sidecar.internal.evil.com: HTTPS is required")
        }

        @Test(
            "isLoopback",
            arguments: [
                ("localhost", true), ("LocalHost", true),
                ("::1", true), ("[::1]", true),
                ("127.0.0.1", true), ("127.5.6.7", true), ("127.255.255.255", true), ("127.0.0.0", true),
                ("", false), ("localhost.evil.com", false), ("notlocalhost", false), ("localhost-evil", false),
                ("127.0.0.1.evil.com", false), ("evil.127.0.0.1", false), ("127.0.0", false), ("127.0.0.1.", false),
                ("127.0.0.256", false), ("127..0.1", false), ("128.0.0.1", false), ("1127.0.0.1", false),
                ("10.0.0.1", false), ("0.0.0.0", false), ("::2", false), ("[::2]", false), ("example.com", false),
            ])
        func isLoopback(host: String, expected: Bool) {
            #expect(SecurityGuard.isLoopback(host) == expected)
        }

        @Test("a response lacking both security headers logs one warning naming them")
        func warnsOnMissingHeaders() {
            let logger = CapturingLogger()
            let response = HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data("{}".utf8))
            let returned = SecurityGuard().intercept(
                response, to: makeRequest("https://example.com/a"), context: context(id: 7, logger: logger))
            #expect(returned.status == 200)
            #expect(returned.headers == response.headers)
            #expect(returned.body == response.body)
            #expect(logger.lines == [
                LogLine(level: .warning, message: "response lacks security headers", metadata: [
                    "request": "#7", "host": "example.com", "missing": "X-Content-Type-Options,X-Frame-Options",
                ]),
            ])
        }

        @Test("a response lacking one security header names only that one")
        func warnsOnOneMissingHeader() {
            let logger = CapturingLogger()
            let guardian = SecurityGuard()
            _ = guardian.intercept(
                HTTPResponse(status: 200, headers: ["x-frame-options": "DENY"]),
                to: makeRequest("https://example.com/a"), context: context(id: 1, logger: logger))
            _ = guardian.intercept(
                HTTPResponse(status: 404, headers: ["X-CONTENT-TYPE-OPTIONS": "nosniff"]),
                to: makeRequest("https://api.example.com/b"), context: context(id: 2, logger: logger))
            #expect(logger.lines == [
                LogLine(level: .warning, message: "response lacks security headers", metadata: [
                    "request": "#1", "host": "example.com", "missing": "X-Content-Type-Options",
                ]),
                LogLine(level: .warning, message: "response lacks security headers", metadata: [
                    "request": "#2", "host": "api.example.com", "missing": "X-Frame-Options",
                ]),
            ])
        }

        @Test("a response with both security headers logs nothing")
        func silentWhenHeadersPresent() {
            let logger = CapturingLogger()
            let response = HTTPResponse(status: 200, headers: ["X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY"])
            let returned = SecurityGuard().intercept(response, to: makeRequest("https://example.com"), context: context(logger: logger))
            #expect(returned.headers == response.headers)
            #expect(logger.lines.isEmpty)
        }

        @Test("no logger, warnings off, or a logger above warning level: nothing is logged and the response is unchanged")
        func silentWithoutLogger() {
            let response = HTTPResponse(status: 200, headers: ["A": "1"], body: Data("x".utf8))
            let request = makeRequest("https://example.com")
            let returned = SecurityGuard().intercept(response, to: request, context: context(logger: nil))
            #expect(returned.status == 200)
            #expect(returned.headers == response.headers)
            #expect(returned.body == response.body)

            let logger = CapturingLogger()
            _ = SecurityGuard(warnsOnMissingSecurityHeaders: false).intercept(response, to: request, context: context(logger: logger))
            #expect(logger.lines.isEmpty)

            let errorsOnly = CapturingLogger(minimumLevel: .error)
            _ = SecurityGuard().intercept(response, to: request, context: context(logger: errorsOnly))
            #expect(errorsOnly.lines.isEmpty)
        }
    }
}

// MARK: - AuthInterceptor

extension InterceptorTests {
    @Suite("AuthInterceptor")
    struct AuthInterceptorTests {
        private static let api = "https://api.example.com"

        private func authorized(
            _ auth: AuthInterceptor, _ request: HTTPRequest, requiresAuth: Bool = true,
            sourceLocation: SourceLocation = #_sourceLocation
        ) async -> HTTPRequest? {
            do throws(NetworkError) {
                return proceeded(try await auth.intercept(request, context: context(requiresAuth: requiresAuth)), sourceLocation: sourceLocation)
            } catch {
                Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
                return nil
            }
        }

        @Test("adds Authorization: Bearer <token>")
        func addsBearer() async {
            let auth = AuthInterceptor { "t" }
            let sent = await authorized(auth, makeRequest(Self.api + "/v1/items", headers: ["Accept": "application/json"]))
            #expect(sent?.headers.values(for: "Authorization") == ["Bearer t"])
            #expect(sent?.headers["Accept"] == "application/json")
            #expect(sent?.headers.count == 2)
            #expect(sent?.url == URL(string: Self.api + "/v1/items")!)
        }

        @Test("replaces every existing Authorization field")
        func replacesExisting() async {
            let auth = AuthInterceptor { "fresh" }
            let request = makeRequest(Self.api + "/v1/items", headers: [
                "authorization": "Basic b2xkOm9sZA==", "Accept": "*/*", "Authorization": "Bearer stale",
            ])
            let sent = await authorized(auth, request)
            #expect(sent?.headers.values(for: "Authorization") == ["Bearer fresh"])
            #expect(sent?.headers["Accept"] == "*/*")
            #expect(sent?.headers.count == 2)
        }

        @Test("requiresAuth: false sends no credentials and does not read the token")
        func requiresAuthFalse() async {
            let reads = Locked(0)
            let auth = AuthInterceptor {
                reads.withLock { $0 += 1 }
                return "t"
            }
            let sent = await authorized(auth, makeRequest(Self.api + "/v1/items"), requiresAuth: false)
            #expect(sent?.headers.contains("Authorization") == false)
            #expect(reads.withLock { $0 } == 0)
        }

        @Test(
            "public paths go without credentials",
            arguments: ["/auth/login", "/v1/auth/login", "/health", "/auth/refresh/", "/auth/refresh", "/api/v2/health//",
                        "/auth/login?next=/home"])
        func publicPathsSkip(path: String) async {
            let reads = Locked(0)
            let auth = AuthInterceptor {
                reads.withLock { $0 += 1 }
                return "t"
            }
            let sent = await authorized(auth, makeRequest(Self.api + path))
            #expect(sent?.headers.contains("Authorization") == false)
            #expect(reads.withLock { $0 } == 0)
            #expect(auth.isPublic(URL(string: Self.api + path)!.path))
        }

        @Test(
            "paths that merely contain a public path are not public",
            arguments: ["/auth/login-history", "/myauth/login", "/auth/login/extra", "/healthcheck", "/v1/unhealth",
                        "/auth", "/", ""])
        func lookalikePathsAreNotPublic(path: String) async {
            let auth = AuthInterceptor { "t" }
            let sent = await authorized(auth, makeRequest(Self.api + path))
            #expect(sent?.headers["Authorization"] == "Bearer t")
            #expect(!auth.isPublic(URL(string: Self.api + path)!.path))
        }

        @Test("custom public paths are normalised to start with a slash")
        func customPublicPaths() {
            let auth = AuthInterceptor(publicPaths: ["status", "/oauth/token"]) { "t" }
            #expect(auth.publicPaths == ["/status", "/oauth/token"])
            #expect(auth.isPublic("/status"))
            #expect(auth.isPublic("/v3/status/"))
            #expect(auth.isPublic("/oauth/token"))
            #expect(!auth.isPublic("/mystatus"))
            #expect(!auth.isPublic("/health")) // the defaults are replaced, not extended
            #expect(AuthInterceptor.defaultPublicPaths == ["/auth/login", "/auth/refresh", "/health"])
        }

        @Test("a nil token fails with .unauthorized")
        func nilToken() async {
            let auth = AuthInterceptor { nil }
            let error = await thrown { () async throws(NetworkError) in
                try await auth.intercept(makeRequest(Self.api + "/v1/items"), context: context())
            }
            guard case .unauthorized? = error else {
                Issue.record("expected .unauthorized, got \(String(describing: error))")
                return
            }
        }

        @Test("an empty token fails with .unauthorized")
        func emptyToken() async {
            let auth = AuthInterceptor { "" }
            let error = await thrown { () async throws(NetworkError) in
                try await auth.intercept(makeRequest(Self.api + "/v1/items"), context: context())
            }
            guard case .unauthorized? = error else {
                Issue.record("expected .unauthorized, got \(String(describing: error))")
                return
            }
        }

        @Test("an error from the token provider is passed on unchanged")
        func tokenProviderError() async {
            let auth = AuthInterceptor { () async throws(NetworkError) -> String? in throw .noConnection(underlying: nil) }
            let error = await thrown { () async throws(NetworkError) in
                try await auth.intercept(makeRequest(Self.api + "/v1/items"), context: context())
            }
            guard case .noConnection? = error else {
                Issue.record("expected .noConnection, got \(String(describing: error))")
                return
            }
        }

        @Test("no token is needed for public paths or requiresAuth: false")
        func noTokenNeededWhenSkipping() async {
            let auth = AuthInterceptor { nil }
            let login = await authorized(auth, makeRequest(Self.api + "/auth/login", method: .post))
            #expect(login?.headers.isEmpty == true)
            let anonymous = await authorized(auth, makeRequest(Self.api + "/v1/items"), requiresAuth: false)
            #expect(anonymous?.headers.isEmpty == true)
        }

        @Test("the token is read on every call, so a refreshed token is picked up")
        func tokenReadPerCall() async {
            let current = Locked<String?>("first")
            let auth = AuthInterceptor { current.withLock { $0 } }
            let request = makeRequest(Self.api + "/v1/items")

            #expect(await authorized(auth, request)?.headers["Authorization"] == "Bearer first")
            current.withLock { $0 = "second" }
            #expect(await authorized(auth, request)?.headers["Authorization"] == "Bearer second")
            // A retry carries the previous attempt's header; it is replaced, not duplicated.
            let retried = await authorized(auth, makeRequest(Self.api + "/v1/items", headers: ["Authorization": "Bearer first"]))
            #expect(retried?.headers.values(for: "Authorization") == ["Bearer second"])
            current.withLock { $0 = nil }
            let error = await thrown { () async throws(NetworkError) in try await auth.intercept(request, context: context()) }
            guard case .unauthorized? = error else {
                Issue.record("expected .unauthorized once the token is gone, got \(String(describing: error))")
                return
            }
        }
    }
}

// MARK: - LoggingInterceptor and Redaction

extension InterceptorTests {
    @Suite("LoggingInterceptor")
    struct LoggingInterceptorTests {
        /// A request and response stuffed with every kind of secret the default redaction covers.
        private static let secretURL =
            "https://api.example.com/v1/session?access_token=tok1&token=tok2&refresh_token=tok3&code=c0de&password=hunter2&page=2"
        private static let secretBody = Data(#"{"password":"hunter2","user":{"refresh_token":"tok3"},"name":"ada"}"#.utf8)
        private static var secretRequest: HTTPRequest {
            makeRequest(secretURL, method: .post, headers: [
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
            let ctx = context(id: 3, attempt: 2)
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
            #expect(logger.lines.first == LogLine(level: .info, message: "request", metadata: [
                "request": "#3", "attempt": "2", "method": "POST",
                "url": "https://api.example.com/v1/session?access_token=%3Credacted%3E&token=%3Credacted%3E"
                    + "&refresh_token=%3Credacted%3E&code=%3Credacted%3E&password=%3Credacted%3E&page=2",
                "headers": "Authorization: <redacted>; Cookie: <redacted>; Proxy-Authorization: <redacted>; "
                    + "Content-Type: application/json",
                "body": #"{"name":"ada","password":"<redacted>","user":{"refresh_token":"<redacted>"}}"#,
            ]))
            #expect(logger.lines.last == LogLine(level: .info, message: "response", metadata: [
                "request": "#3", "attempt": "2", "status": "200",
                "url": "https://api.example.com/v1/session?access_token=%3Credacted%3E&token=%3Credacted%3E"
                    + "&refresh_token=%3Credacted%3E&code=%3Credacted%3E&password=%3Credacted%3E&page=2",
                "headers": "Set-Cookie: <redacted>; Content-Type: application/json",
                "body": #"{"access_token":"<redacted>","client_secret":"<redacted>","id_token":"<redacted>","ok":true}"#,
            ]))
        }

        @Test("the request passes through the logging interceptor unchanged, secrets included")
        func requestUnchanged() {
            let logger = CapturingLogger()
            let interceptor = LoggingInterceptor(logger: logger, detail: .verbose)
            let sent = proceeded(interceptor.intercept(Self.secretRequest, context: context()))
            #expect(sent?.url == Self.secretRequest.url)
            #expect(sent?.headers == Self.secretRequest.headers)
            #expect(sent?.body == Self.secretBody)
            let response = interceptor.intercept(Self.secretResponse, to: Self.secretRequest, context: context())
            #expect(response.headers["Set-Cookie"] == "id=zzz; HttpOnly")
            #expect(response.body == Self.secretResponse.body)
        }

        @Test("secret names are matched case-insensitively in headers, query and JSON")
        func caseInsensitiveRedaction() {
            let logger = CapturingLogger()
            let request = makeRequest(
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

        @Test("a non-JSON body mentioning a secret name is withheld entirely")
        func formBodyWithheld() {
            let logger = CapturingLogger()
            let form = Data("grant_type=password&username=ada&password=hunter2".utf8)
            exchange(
                LoggingInterceptor(logger: logger, detail: .verbose),
                makeRequest("https://api.example.com/oauth", method: .post, headers: ["Content-Type": "application/x-www-form-urlencoded"], body: form),
                HTTPResponse(status: 200, body: Data("plain ok".utf8)))
            #expect(logger.lines.first?.metadata["body"] == "<\(form.count) bytes, redacted>")
            #expect(logger.lines.last?.metadata["body"] == "plain ok")
            #expect(!logger.allText.contains("hunter2"))
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
                makeRequest("https://api.example.com/upload", method: .put, body: big),
                HTTPResponse(status: 200, body: big))
            let expected = String(repeating: "abcdefghij", count: 100) + "… (5000 bytes)"
            #expect(logger.lines.first?.metadata["body"] == expected)
            #expect(logger.lines.last?.metadata["body"] == expected)
            #expect(logger.lines.first?.metadata["body"]?.hasPrefix(String(repeating: "abcdefghij", count: 100)) == true)
            #expect(logger.lines.first?.metadata["body"]?.utf8.count == 1000 + "… (5000 bytes)".utf8.count)

            let small = CapturingLogger()
            exchange(
                LoggingInterceptor(logger: small, detail: .verbose, bodyLimit: 25),
                makeRequest("https://api.example.com/upload", method: .put, body: big),
                HTTPResponse(status: 200, body: Data("exactly twenty-five bytes".utf8)))
            #expect(small.lines.first?.metadata["body"] == "abcdefghijabcdefghijabcde… (5000 bytes)")
            #expect(small.lines.last?.metadata["body"] == "exactly twenty-five bytes") // at the limit: not cut
        }

        @Test("verbose detail: no request body means no body field; an empty response body is logged empty")
        func verboseEmptyBodies() {
            let logger = CapturingLogger()
            exchange(LoggingInterceptor(logger: logger, detail: .verbose), makeRequest("https://api.example.com/x"), HTTPResponse(status: 204))
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
            let redaction = Redaction(headers: ["X-Api-Key"], parameters: ["Sig"])
            #expect(redaction.headers == ["x-api-key"])
            #expect(redaction.parameters == ["sig"])
            #expect(redaction.value(ofHeader: "x-api-key", "k3y") == Redaction.placeholder)
            #expect(redaction.value(ofHeader: "Authorization", "Bearer s3cr3t") == "Bearer s3cr3t")
            #expect(redaction.url(URL(string: "https://cdn.example.com/f?sig=abc&token=t")!)
                == "https://cdn.example.com/f?sig=%3Credacted%3E&token=t")
            #expect(redaction.body(Data(#"{"sig":"abc","password":"p"}"#.utf8), limit: 100) == #"{"password":"p","sig":"<redacted>"}"#)
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
            #expect(redaction.body(accents, limit: 1001) == String(repeating: "é", count: 499) + "… (1200 bytes)")
            #expect(redaction.body(accents, limit: 1000) == String(repeating: "é", count: 500) + "… (1200 bytes)")
            // JSON is redacted before it is cut.
            let json = Data(#"{"password":"hunter2","name":"ada"}"#.utf8)
            #expect(redaction.body(json, limit: 10) == #"{"name":"a… (\#(#"{"name":"ada","password":"<redacted>"}"#.utf8.count) bytes)"#)
        }

        @Test("response log level: 2xx/3xx info, 4xx warning, 5xx error")
        func responseLevels() {
            let logger = CapturingLogger()
            let interceptor = LoggingInterceptor(logger: logger, detail: .minimal)
            let request = makeRequest("https://api.example.com/x")
            for code in [200, 204, 304, 400, 404, 429, 499, 500, 503, 599] {
                _ = interceptor.intercept(HTTPResponse(status: code), to: request, context: context())
            }
            #expect(logger.lines.map(\.level) == [.info, .info, .info, .warning, .warning, .warning, .warning, .error, .error, .error])
            #expect(logger.lines.map { $0.metadata["status"] ?? "" } == ["200", "204", "304", "400", "404", "429", "499", "500", "503", "599"])
            #expect(logger.lines.allSatisfy { $0.message == "response" })
        }

        @Test("a logger at minimumLevel .error gets only 5xx responses")
        func errorLevelLogger() {
            let logger = CapturingLogger(minimumLevel: .error)
            let interceptor = LoggingInterceptor(logger: logger, detail: .verbose)
            let request = makeRequest("https://api.example.com/x")
            _ = interceptor.intercept(request, context: context())
            for code in [200, 302, 404, 500, 502] {
                _ = interceptor.intercept(HTTPResponse(status: code), to: request, context: context())
            }
            #expect(logger.lines.map(\.level) == [.error, .error])
            #expect(logger.lines.map { $0.metadata["status"] } == ["500", "502"])
        }

        @Test("a logger at minimumLevel .warning gets 4xx and 5xx responses but no requests")
        func warningLevelLogger() {
            let logger = CapturingLogger(minimumLevel: .warning)
            let interceptor = LoggingInterceptor(logger: logger)
            let request = makeRequest("https://api.example.com/x")
            _ = interceptor.intercept(request, context: context())
            for code in [200, 404, 500] {
                _ = interceptor.intercept(HTTPResponse(status: code), to: request, context: context())
            }
            #expect(logger.lines.map(\.level) == [.warning, .error])
            #expect(logger.lines.map(\.message) == ["response", "response"])
        }
    }
}

/// Regressions for defects found while writing the suites above.
@Suite struct RedactionAndPolicyRegressionTests {
    @Test func aHugeExponentialBackoffIsCappedNotATrap() {
        let policy = RetryPolicy(maxAttempts: 30, retryableStatusCodes: [503], backoff: .exponential(base: .seconds(1), multiplier: 10), jitter: false)
        let decision = policy.decide(
            attempt: 25, request: HTTPRequest(url: URL(string: "https://h/x")!),
            outcome: .response(HTTPResponse(status: 503)), now: Date(), randomUnit: 0)
        #expect(decision == .retry(after: policy.maximumDelay, reason: "status 503"))
    }

    @Test func aRetryAfterBeyondIntIsClampedAndSignsAreRejected() {
        let now = Date()
        #expect(RetryPolicy.retryAfter("99999999999999999999", now: now).map { $0 >= .seconds(3600) } == true)
        #expect(RetryPolicy.retryAfter("+5", now: now) == nil)
        #expect(RetryPolicy.retryAfter(" 7 ", now: now) == .seconds(7))
    }

    @Test func nonUTF8BodiesAreNeverShown() {
        let redaction = Redaction()
        #expect(redaction.body(Data("password=hunter2".utf8) + [0xFF], limit: 1000) == "<17 bytes, binary>")
        #expect(redaction.body(Data("plain text".utf8), limit: 1000) == "plain text")
        #expect(redaction.body(Data("password=hunter2".utf8), limit: 1000) == "<16 bytes, redacted>")
    }

    @Test func urlsLoseUserInfoAndFragment() {
        let text = Redaction().url(URL(string: "https://ada:hunter2@api.example.com/x?page=1#access_token=tok1")!)
        #expect(text == "https://api.example.com/x?page=1")
    }

    @Test func locationHeadersAreRedactedLikeURLs() {
        let redaction = Redaction()
        #expect(redaction.value(ofHeader: "Location", "https://app/cb?code=abc&state=s") == "https://app/cb?code=%3Credacted%3E&state=s")
        #expect(redaction.value(ofHeader: "X-Api-Key", "k") == Redaction.placeholder)
    }

    @Test func publicPathsWithATrailingSlashMatch() {
        let auth = AuthInterceptor(publicPaths: ["/status/"]) { "t" }
        #expect(auth.isPublic("/status"))
        #expect(auth.isPublic("/v1/status/"))
        #expect(!auth.isPublic("/statuses"))
    }

    @Test func loopbackLiteralsAreStrict() {
        #expect(SecurityGuard.isLoopback("127.0.0.1"))
        #expect(!SecurityGuard.isLoopback("127.0.0.+1"))
        #expect(!SecurityGuard.isLoopback("127.0.0.01"))
        #expect(!SecurityGuard.isLoopback("api.localhost"))
        #expect(!SecurityGuard.isLoopback("127.0.0.256"))
    }

    @Test func errorBodiesWithLeadingWhitespaceAreRead() {
        let error = NetworkError(response: HTTPResponse(status: 500, body: Data(" \n{\"message\":\"db down\"}".utf8)))
        guard case .serverError(500, "db down")? = error else { Issue.record("got \(String(describing: error))"); return }
    }

    @Test func anInterceptorAddedIdempotencyKeyMakesAPostRetryable() async throws {
        struct AddKey: RequestInterceptor {
            func intercept(_ request: HTTPRequest, context: RequestContext) -> RequestInterception {
                var request = request
                request.headers.replaceOrAdd(name: "Idempotency-Key", value: "from-interceptor")
                return .proceed(request)
            }
        }
        let transport = ScriptedTransport()
        transport.script("/orders", [.status(503), .status(201)])
        let api = client(URL(string: "https://api.test")!, transport: transport) { $0.requestInterceptors = [AddKey()] }
        _ = try await api.send(Endpoint<EmptyResponse>(path: "orders", method: .post))
        #expect(transport.requests(to: "/orders").count == 2)
        await api.shutdown()
    }
}

extension RedactionAndPolicyRegressionTests {
    @Test func textBodiesAreHiddenOnlyWhenTheyCarryASecretField() {
        let redaction = Redaction()
        #expect(redaction.body(Data("scan the barcode".utf8), limit: 100) == "scan the barcode")
        #expect(redaction.body(Data("user=ada&password=x".utf8), limit: 100) == "<19 bytes, redacted>")
        #expect(redaction.body(Data("Token: abc".utf8), limit: 100) == "<10 bytes, redacted>")
    }
}
