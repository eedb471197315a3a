import Foundation
import CourierTesting
import Testing

@testable import Courier

@Suite struct CapturingLoggerTests {
    @Test("it keeps every enabled line in order")
    func itKeepsEveryEnabledLineInOrder() {
        let logger = CapturingLogger(minimumLevel: .info)
        logger.log(.debug, "hidden", metadata: [:])
        logger.log(.info, "request", metadata: ["request": "#1"])
        logger.log(.error, "response", metadata: ["status": "500"])
        #expect(logger.lines == [
            CapturingLogger.Line(level: .info, message: "request", metadata: ["request": "#1"]),
            CapturingLogger.Line(level: .error, message: "response", metadata: ["status": "500"]),
        ])
        #expect(logger.lines("response").count == 1)
        logger.reset()
        #expect(logger.lines.isEmpty)
    }

    @Test("a client's logs reach it redacted")
    func aClientsLogsReachItRedacted() async throws {
        let logger = CapturingLogger()
        let transport = InMemoryTransport(always: HTTPResponse(status: 200, body: Data(#"{"id":1,"name":"A"}"#.utf8)))
        let api = client(URL(string: "https://api.test")!, transport: transport) {
            $0.auth = AuthInterceptor { "secret-token" }
            $0.logging = .init(logger: logger, detail: .standard)
            $0.security = SecurityGuard(warnsOnMissingSecurityHeaders: true)
        }
        _ = try await api.send(Endpoint<User>(path: "users/1"))
        await api.shutdown()
        #expect(logger.lines.map(\.message) == ["request", "response", "response lacks security headers"])
        #expect(!logger.allText.contains("secret-token"))
        #expect(logger.lines("request").first?.metadata["headers"]?.contains("Authorization: <redacted>") == true)
    }

    @Test("a detail of off logs no exchange but still logs diagnostics")
    func aDetailOfOffLogsNoExchangeButStillLogsDiagnostics() async throws {
        let logger = CapturingLogger()
        let api = client(URL(string: "https://api.test")!, transport: InMemoryTransport(always: HTTPResponse(status: 204))) {
            $0.logging = .init(logger: logger, detail: .off)
            $0.security = SecurityGuard(warnsOnMissingSecurityHeaders: true)
        }
        _ = try await api.data(for: Endpoint<EmptyResponse>(path: "ping"))
        await api.shutdown()
        // Diagnostics still arrive: here, the security guard's warning.
        #expect(logger.lines.map(\.message) == ["response lacks security headers"])
    }
}
