import Foundation
import Testing
@testable import Courier
import CourierTesting

struct User: Codable, Sendable, Equatable {
    let id: Int
    let name: String
}

/// Retries with no waiting, so counting tests need no clock.
let immediateRetries = RetryPolicy(maxAttempts: 3, retryableStatusCodes: RetryPolicy.default.retryableStatusCodes, backoff: .immediate)

func client(
    _ baseURL: URL, transport: any HTTPTransport = URLSessionTransport(), retryPolicy: RetryPolicy = immediateRetries,
    clock: any TimeSource = SystemTimeSource(), configure: (inout APIClient.Configuration) -> Void = { _ in }
) -> APIClient {
    var configuration = APIClient.Configuration(
        baseURL: baseURL, transport: transport, retryPolicy: retryPolicy, clock: clock, random: SeededRandomSource(seed: 42))
    configure(&configuration)
    return APIClient(configuration: configuration)
}

/// Reads request events until `done` says stop; returns them.
func events(_ stream: AsyncStream<RequestEvent>, until done: (RequestEvent) -> Bool) async -> [RequestEvent] {
    var seen: [RequestEvent] = []
    for await event in stream {
        seen.append(event)
        if done(event) { break }
    }
    return seen
}

/// Counts final events (finished or failed) until `count` have been seen.
func finalEvents(_ stream: AsyncStream<RequestEvent>, count: Int) async -> [RequestEvent] {
    var finals = 0
    return await events(stream) { event in
        switch event {
        case .finished, .failed: finals += 1
        default: break
        }
        return finals == count
    }
}

@Suite struct PipelineRetryTests {
    @Test func retriesAreCountedAtTheServer() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/users/1", [.status(503), .status(503), .json(200, #"{"id":1,"name":"Ada"}"#)])
            let api = client(server.baseURL)
            let user = try await api.send(Endpoint<User>(path: "users/1", version: .v1)).value
            #expect(user == User(id: 1, name: "Ada"))
            #expect(try await server.requests(path: "/v1/users/1").count == 3)
            await api.shutdown()
        }
    }

    @Test func exhaustedAttemptsEndInServerError() async throws {
        try await withScriptedServer { server in
            try await server.script("/flaky", [.json(503, #"{"message":"maintenance","code":"M1"}"#)])
            let api = client(server.baseURL)
            let error = await #expect(throws: NetworkError.self) { try await api.send(Endpoint<User>(path: "flaky")) }
            guard case .serverError(503, let message)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(message == "maintenance (M1)")
            #expect(try await server.requests(path: "/flaky").count == 3)
            await api.shutdown()
        }
    }

    @Test func retryAfterIsHonouredOnTheInjectedClock() async throws {
        try await withScriptedServer { server in
            try await server.script("/limited", [.status(429, headers: ["Retry-After": "2"]), .json(200, #"{"id":2,"name":"Bo"}"#)])
            let clock = ManualClock()
            let api = client(server.baseURL, retryPolicy: .default, clock: clock)
            let call = Task { try await api.send(Endpoint<User>(path: "limited")) }
            await clock.waitForSleepers(1)
            #expect(clock.pendingDelays == [.seconds(2)])
            #expect(try await server.requests(path: "/limited").count == 1)
            clock.advance(by: .seconds(2))
            #expect(try await call.value.value == User(id: 2, name: "Bo"))
            #expect(try await server.requests(path: "/limited").count == 2)
            await api.shutdown()
        }
    }

    @Test func postIsNotRetriedUnlessItCarriesAnIdempotencyKey() async throws {
        try await withScriptedServer { server in
            try await server.script("/orders", [.status(503)])
            let api = client(server.baseURL)
            let plain = Endpoint<EmptyResponse>(path: "orders", method: .post, body: ["item": "book"])
            await #expect(throws: NetworkError.self) { try await api.send(plain) }
            #expect(try await server.requests(path: "/orders").count == 1)

            try await server.reset()
            try await server.script("/orders", [.status(503), .status(201)])
            let keyed = Endpoint<EmptyResponse>(path: "orders", method: .post, headers: ["Idempotency-Key": "k-1"], body: ["item": "book"])
            _ = try await api.send(keyed)
            let seen = try await server.requests(path: "/orders")
            #expect(seen.count == 2)
            #expect(seen.allSatisfy { $0.header("Idempotency-Key") == "k-1" && $0.bodyText == #"{"item":"book"}"# })
            await api.shutdown()
        }
    }

    @Test func aTotalDeadlineCoversEveryAttempt() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(clock: clock)
        transport.script("/slow", [.hang])
        let api = client(URL(string: "https://api.test")!, transport: transport, retryPolicy: .default, clock: clock) {
            $0.timeouts = .init(attempt: .seconds(3), request: .seconds(5))
            $0.retryPolicy.jitter = false
        }
        let call = Task { try await api.send(Endpoint<User>(path: "slow")) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(3))                 // attempt 1 times out at 3 s
        await clock.waitForSleepers(1)
        #expect(clock.pendingDelays == [.seconds(1)])   // backoff before attempt 2
        clock.advance(by: .seconds(1))
        await clock.waitForSleepers(1)
        #expect(clock.pendingDelays == [.seconds(1)])   // attempt 2 gets only what is left of 5 s
        clock.advance(by: .seconds(1))
        let error = await #expect(throws: NetworkError.self) { try await call.value }
        guard case .timeout? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(transport.requests(to: "/slow").count == 2)
        await api.shutdown()
    }

    @Test func theRetryBudgetStopsARetryStorm() async throws {
        let transport = ScriptedTransport()
        transport.script("/down", [.status(503)])
        let api = client(URL(string: "https://api.test")!, transport: transport) {
            $0.retryBudget = RetryBudget(ratio: 0.1, reserve: 2, capacity: 2)
        }
        for _ in 0..<20 {
            await #expect(throws: NetworkError.self) { try await api.send(Endpoint<EmptyResponse>(path: "down")) }
        }
        // 20 requests; retries limited to the reserve of 2 plus 0.1 per request.
        let hits = transport.requests(to: "/down").count
        #expect(hits <= 20 + 2 + 2)
        #expect(try await api.pipelineStats().retriesDenied > 0)
        await api.shutdown()
    }
}

@Suite struct PipelineErrorTests {
    @Test func statusesMapToErrors() async throws {
        try await withScriptedServer { server in
            try await server.script("/401", [.status(401)])
            try await server.script("/403", [.status(403)])
            try await server.script("/404", [.status(404)])
            try await server.script("/409", [.json(409, #"{"version":3}"#)])
            try await server.script("/422", [.json(422, #"{"message":"name is required","code":"invalid"}"#)])
            try await server.script("/500", [.text(500, "<html>oops</html>")])
            let api = client(server.baseURL, retryPolicy: .never)
            func failure(_ path: String) async -> NetworkError? {
                await #expect(throws: NetworkError.self) { try await api.send(Endpoint<EmptyResponse>(path: path)) }
            }
            guard case .unauthorized? = await failure("401") else { Issue.record("401"); return }
            guard case .forbidden? = await failure("403") else { Issue.record("403"); return }
            guard case .notFound? = await failure("404") else { Issue.record("404"); return }
            guard case .conflict(let body)? = await failure("409") else { Issue.record("409"); return }
            #expect(String(decoding: body, as: UTF8.self) == #"{"version":3}"#)
            guard case .serverError(422, let message)? = await failure("422") else { Issue.record("422"); return }
            #expect(message == "name is required (invalid)")
            guard case .serverError(500, nil)? = await failure("500") else { Issue.record("500"); return }
            await api.shutdown()
        }
    }

    @Test func anUndecodableBodyIsADecodingErrorWithTheBodyPrefix() async throws {
        let transport = InMemoryTransport(always: HTTPResponse(status: 200, body: Data(#"{"id":"not a number"}"#.utf8)))
        let api = client(URL(string: "https://api.test")!, transport: transport)
        let error = await #expect(throws: NetworkError.self) { try await api.send(Endpoint<User>(path: "users/1")) }
        guard case .decodingError(let cause, let prefix)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(cause is DecodingError)
        #expect(prefix == #"{"id":"not a number"}"#)
        await api.shutdown()
    }

    @Test func anInvalidPathIsInvalidURLAndNothingIsSent() async throws {
        let transport = ScriptedTransport()
        let api = client(URL(string: "https://api.test/base")!, transport: transport)
        let error = await #expect(throws: NetworkError.self) { try await api.send(Endpoint<User>(path: "../admin")) }
        guard case .invalidURL? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(transport.requests.isEmpty)
        await api.shutdown()
    }

    @Test func snakeCaseAndISO8601Coding() async throws {
        struct Event: Codable, Sendable, Equatable { let eventName: String; let startsAt: Date }
        let transport = InMemoryTransport { request throws(NetworkError) in
            HTTPResponse(status: 200, body: request.body ?? Data())
        }
        let api = client(URL(string: "https://api.test")!, transport: transport) { $0.json = JSONCoding(keys: .snakeCase, dates: .iso8601) }
        let sent = Event(eventName: "launch", startsAt: Date(timeIntervalSince1970: 1_800_000_000))
        let request = try api.makeRequest(Endpoint<Event>(path: "events", method: .post, body: sent))
        #expect(String(decoding: request.body ?? Data(), as: UTF8.self) == #"{"event_name":"launch","starts_at":"2027-01-15T08:00:00Z"}"#)
        #expect(try await api.send(Endpoint<Event>(path: "events", method: .post, body: sent)).value == sent)
        await api.shutdown()
    }
}

@Suite struct PipelineSecurityTests {
    @Test func plainHTTPToARemoteHostIsRefusedBeforeSending() async throws {
        let transport = ScriptedTransport()
        let api = client(URL(string: "http://example.com")!, transport: transport)
        let error = await #expect(throws: NetworkError.self) { try await api.send(Endpoint<User>(path: "users/1")) }
        guard case .securityError(let reason)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(reason.contains("example.com"))
        #expect(transport.requests.isEmpty)
        await api.shutdown()
    }

    @Test func plainHTTPToLoopbackIsAllowedAndAuthIsAdded() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/me", [.json(200, #"{"id":9,"name":"Cy"}"#)])
            try await server.script("/v1/auth/login", [.json(200, #"{"id":0,"name":"login"}"#)])
            let api = client(server.baseURL) { $0.auth = AuthInterceptor { "tok-123" } }
            #expect(try await api.send(Endpoint<User>(path: "me", version: .v1)).value.id == 9)
            _ = try await api.send(Endpoint<User>(path: "auth/login", method: .post, version: .v1))
            #expect(try await server.requests(path: "/v1/me").first?.header("Authorization") == "Bearer tok-123")
            #expect(try await server.requests(path: "/v1/auth/login").first?.header("Authorization") == nil)
            await api.shutdown()
        }
    }

    @Test func aCapturedLogHoldsNoSecret() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/login", [.json(200, #"{"id":1,"name":"Ada","access_token":"srv-tok"}"#, headers: ["Set-Cookie": "sid=cookie-secret"])])
            let logger = CapturedLog()
            let api = client(server.baseURL) {
                $0.auth = AuthInterceptor(publicPaths: []) { "bearer-secret" }
                $0.logging = .init(logger: logger, detail: .verbose)
            }
            let endpoint = Endpoint<User>(
                path: "login", method: .post,
                query: [URLQueryItem(name: "token", value: "query-secret"), URLQueryItem(name: "page", value: "2")],
                headers: ["Cookie": "sid=cookie-secret"],
                body: ["password": "hunter2", "user": "ada"], version: .v1)
            _ = try await api.send(endpoint)
            let text = logger.text
            for secret in ["bearer-secret", "cookie-secret", "query-secret", "hunter2", "srv-tok"] {
                #expect(!text.contains(secret), "\(secret) leaked into the log")
            }
            #expect(text.contains("page=2") && text.contains("ada"))
            // What went over the wire still carried the real values.
            let seen = try await server.requests(path: "/v1/login").first
            #expect(seen?.header("Authorization") == "Bearer bearer-secret")
            await api.shutdown()
        }
    }
}

/// A logger that keeps every line, for assertions.
final class CapturedLog: NetworkLogger {
    let minimumLevel = LogLevel.trace
    private let lines = Locked<[String]>([])

    func log(_ level: LogLevel, _ message: String, metadata: [String: String]) {
        let fields = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        lines.withLock { $0.append("\(level) \(message) \(fields.joined(separator: " "))") }
    }

    var text: String { lines.withLock { $0.joined(separator: "\n") } }
}
