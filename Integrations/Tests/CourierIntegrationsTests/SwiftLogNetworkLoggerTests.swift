import Courier
import CourierLogging
import CourierTesting
import Foundation
import InMemoryLogging
import Logging
import Testing

@Suite struct SwiftLogNetworkLoggerTests {
    @Test("levels map to swift-log's, and the logger's level decides what Courier builds")
    func levelsMap() {
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "courier") { _ in handler }
        logger.logLevel = .trace
        let adapter = SwiftLogNetworkLogger(logger)
        #expect(adapter.minimumLevel == .trace)
        for level in Courier.LogLevel.allCases { adapter.log(level, "line \(level)", metadata: ["k": "v"]) }
        #expect(handler.entries.map(\.level) == [.trace, .debug, .info, .warning, .error])
        #expect(handler.entries.allSatisfy { $0.metadata["k"] == .string("v") })

        logger.logLevel = .notice
        let quieter = SwiftLogNetworkLogger(logger)
        #expect(quieter.minimumLevel == .warning)
        #expect(!quieter.isEnabled(.info) && quieter.isEnabled(.warning))
        #expect(SwiftLogNetworkLogger(logger, minimumLevel: .error).minimumLevel == .error)
        #expect(SwiftLogNetworkLogger.courierLevel(atLeast: .critical) == .error)
    }

    @Test("a client's lines reach swift-log redacted, with the logger's own metadata")
    func clientLinesAreRedacted() async throws {
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "courier") { _ in handler }
        logger.logLevel = .debug
        logger[metadataKey: "service"] = "checkout"
        let transport = ScriptedTransport()
        transport.script("/v1/login", [.json(#"{"id":1,"name":"Ada","access_token":"srv-tok"}"#, headers: ["Set-Cookie": "sid=cookie-secret"])])
        let client = APIClient(configuration: configuration(transport) {
            $0.auth = AuthInterceptor(publicPaths: []) { "bearer-secret" }
            $0.logging = .swiftLog(logger, detail: .verbose)
        })
        let endpoint = Endpoint<User>(
            path: "login", method: .post,
            query: [URLQueryItem(name: "token", value: "query-secret"), URLQueryItem(name: "page", value: "2")],
            headers: ["Cookie": "sid=cookie-secret"], body: ["password": "hunter2", "user": "ada"], version: .v1)
        _ = try await client.send(endpoint)
        await client.shutdown()

        // The secrets went over the wire…
        let sent = try #require(transport.requests(to: "/v1/login").first)
        #expect(sent.headers["Authorization"] == "Bearer bearer-secret")
        // …and none reached the handler.
        let entries = handler.entries
        #expect(entries.map(\.message.description) == ["request", "response"])
        #expect(entries.map(\.level) == [.info, .info])
        let text = entries.map { entry in
            "\(entry.message) " + entry.metadata.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }.joined(separator: "\n")
        for secret in ["bearer-secret", "cookie-secret", "query-secret", "hunter2", "srv-tok"] {
            #expect(!text.contains(secret), "\(secret) reached the log")
        }
        #expect(text.contains(Redaction.placeholder))
        let request = try #require(entries.first)
        #expect(request.metadata["service"] == .string("checkout"))
        #expect(request.metadata["method"] == .string("POST"))
        #expect(request.metadata["url"]?.description.contains("page=2") == true)
        #expect(request.metadata["request"] != nil && request.metadata["attempt"] == .string("1"))
    }

    @Test("an error status logs at error level")
    func errorStatus() async throws {
        let handler = InMemoryLogHandler()
        let logger = Logger(label: "courier") { _ in handler }
        let transport = ScriptedTransport()
        transport.script("/v1/broken", [.status(500)])
        let client = APIClient(configuration: configuration(transport) {
            $0.retryPolicy = .never
            $0.logging = .swiftLog(logger, detail: .minimal)
        })
        await #expect(throws: NetworkError.self) { try await client.send(Endpoint<EmptyResponse>(path: "broken", version: .v1)) }
        await client.shutdown()
        #expect(handler.entries.map(\.level) == [.info, .error])
        #expect(handler.entries.last?.metadata["status"] == .string("500"))
    }
}
