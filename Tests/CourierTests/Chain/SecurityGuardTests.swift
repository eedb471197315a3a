import CourierTesting
import Foundation
import Testing

@testable import Courier

@Suite struct SecurityGuardTests {
    private func securityMessage(_ guardian: SecurityGuard, _ url: String, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        do throws(NetworkError) {
            _ = try guardian.intercept(makeTestRequest(url), context: testContext())
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
            let request = makeTestRequest(url, headers: ["Accept": "application/json"])
            let sent = proceeded(try guardian.intercept(request, context: testContext()), sourceLocation: sourceLocation)
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
        let returned = SecurityGuard(warnsOnMissingSecurityHeaders: true).intercept(
            response, to: makeTestRequest("https://example.com/a"), context: testContext(id: 7, logger: logger))
        #expect(returned.status == 200)
        #expect(returned.headers == response.headers)
        #expect(returned.body == response.body)
        #expect(logger.lines == [
            CapturingLogger.Line(level: .warning, message: "response lacks security headers", metadata: [
                "request": "#7", "host": "example.com", "missing": "X-Content-Type-Options,X-Frame-Options",
            ]),
        ])
    }

    @Test("a response lacking one security header names only that one")
    func warnsOnOneMissingHeader() {
        let logger = CapturingLogger()
        let guardian = SecurityGuard(warnsOnMissingSecurityHeaders: true)
        _ = guardian.intercept(
            HTTPResponse(status: 200, headers: ["x-frame-options": "DENY"]),
            to: makeTestRequest("https://example.com/a"), context: testContext(id: 1, logger: logger))
        _ = guardian.intercept(
            HTTPResponse(status: 404, headers: ["X-CONTENT-TYPE-OPTIONS": "nosniff"]),
            to: makeTestRequest("https://api.example.com/b"), context: testContext(id: 2, logger: logger))
        #expect(logger.lines == [
            CapturingLogger.Line(level: .warning, message: "response lacks security headers", metadata: [
                "request": "#1", "host": "example.com", "missing": "X-Content-Type-Options",
            ]),
            CapturingLogger.Line(level: .warning, message: "response lacks security headers", metadata: [
                "request": "#2", "host": "api.example.com", "missing": "X-Frame-Options",
            ]),
        ])
    }

    @Test("a response with both security headers logs nothing")
    func silentWhenHeadersPresent() {
        let logger = CapturingLogger()
        let response = HTTPResponse(status: 200, headers: ["X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY"])
        let returned = SecurityGuard(warnsOnMissingSecurityHeaders: true).intercept(response, to: makeTestRequest("https://example.com"), context: testContext(logger: logger))
        #expect(returned.headers == response.headers)
        #expect(logger.lines.isEmpty)
    }

    @Test("no logger, warnings off (the default), or a logger above warning level: nothing is logged and the response is unchanged")
    func silentWithoutLogger() {
        let response = HTTPResponse(status: 200, headers: ["A": "1"], body: Data("x".utf8))
        let request = makeTestRequest("https://example.com")
        let returned = SecurityGuard(warnsOnMissingSecurityHeaders: true).intercept(response, to: request, context: testContext(logger: nil))
        #expect(returned.status == 200)
        #expect(returned.headers == response.headers)
        #expect(returned.body == response.body)

        let logger = CapturingLogger()
        _ = SecurityGuard().intercept(response, to: request, context: testContext(logger: logger))
        #expect(logger.lines.isEmpty)

        let errorsOnly = CapturingLogger(minimumLevel: .error)
        _ = SecurityGuard(warnsOnMissingSecurityHeaders: true).intercept(response, to: request, context: testContext(logger: errorsOnly))
        #expect(errorsOnly.lines.isEmpty)
    }

    @Test("loopback literals are strict")
    func loopbackLiteralsAreStrict() {
        #expect(SecurityGuard.isLoopback("127.0.0.1"))
        #expect(!SecurityGuard.isLoopback("127.0.0.+1"))
        #expect(!SecurityGuard.isLoopback("127.0.0.01"))
        #expect(!SecurityGuard.isLoopback("api.localhost"))
        #expect(!SecurityGuard.isLoopback("127.0.0.256"))
    }
}
