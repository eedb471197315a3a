import CourierTesting
import Foundation
import Testing

@testable import Courier

@Suite struct APIClientTests {
    @Test("statuses map to errors")
    func statusesMapToErrors() async throws {
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
            guard case .conflict(let conflict)? = await failure("409") else { Issue.record("409"); return }
            #expect(String(decoding: conflict.body, as: UTF8.self) == #"{"version":3}"#)
            let invalid = await failure("422")
            guard case .serverError(let response)? = invalid else { Issue.record("422"); return }
            #expect(response.status == 422)
            #expect(response.headers["Content-Type"] == "application/json")
            #expect(invalid?.serverMessage == "name is required")
            #expect(invalid?.serverCode == "invalid")
            let html = await failure("500")
            guard case .serverError(let page)? = html else { Issue.record("500"); return }
            #expect(String(decoding: page.body, as: UTF8.self) == "<html>oops</html>")
            #expect(html?.serverMessage == nil)
            await api.shutdown()
        }
    }

    @available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, *)
    @Test("called on an actor, the client leaves it: the response is decoded off the caller's executor")
    @ProbeActor
    func leavesTheCallersActor() async throws {
        #expect(ProbeExecutor.isCurrent)   // the premise: the test runs on the probe's queue
        let transport = InMemoryTransport(always: HTTPResponse(status: 200, body: Data("{}".utf8)))
        let api = client(URL(string: "https://api.test")!, transport: transport)
        let probe = try await api.send(Endpoint<ExecutorProbe>(path: "probe")).value
        #expect(!probe.decodedOnCallersExecutor)
        #expect(ProbeExecutor.isCurrent)   // and the caller is back on its own
        await api.shutdown()
    }

    @Test("an undecodable body is a decoding error with the body prefix")
    func anUndecodableBodyIsADecodingErrorWithTheBodyPrefix() async throws {
        let transport = InMemoryTransport(always: HTTPResponse(status: 200, body: Data(#"{"id":"not a number"}"#.utf8)))
        let api = client(URL(string: "https://api.test")!, transport: transport)
        let error = await #expect(throws: NetworkError.self) { try await api.send(Endpoint<User>(path: "users/1")) }
        guard case .decodingError(let cause, let prefix)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(cause is DecodingError)
        #expect(prefix == #"{"id":"not a number"}"#)
        await api.shutdown()
    }

    @Test("an invalid path is invalid URL and nothing is sent")
    func anInvalidPathIsInvalidURLAndNothingIsSent() async throws {
        let transport = ScriptedTransport()
        let api = client(URL(string: "https://api.test/base")!, transport: transport)
        let error = await #expect(throws: NetworkError.self) { try await api.send(Endpoint<User>(path: "../admin")) }
        guard case .invalidURL? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(transport.requests.isEmpty)
        await api.shutdown()
    }

    @Test("url(for:) previews the URL send uses, and refuses what send refuses, sending nothing")
    func urlPreview() async throws {
        let transport = ScriptedTransport(fallback: .json(#"{"id":1,"name":"A"}"#))
        let api = client(URL(string: "https://api.test/base")!, transport: transport)
        let endpoint = Endpoint<User>(path: "users/a b", query: [URLQueryItem(name: "q", value: "x+y")], version: .v1)
        let preview = try api.url(for: endpoint)
        #expect(preview.absoluteString == "https://api.test/base/v1/users/a%20b?q=x%2By")
        #expect(transport.requests.isEmpty)
        _ = try await api.send(endpoint)
        #expect(transport.requests.map(\.url) == [preview])
        #expect(throws: NetworkError.self) { try api.url(for: Endpoint<User>(path: "../admin")) }
        await api.shutdown()
    }

    @Test("without a cache, cacheOnly fails notCached without sending; other policies ask the network")
    func cachePolicyWithoutCache() async throws {
        let transport = ScriptedTransport(fallback: .json(#"{"id":1,"name":"A"}"#))
        let api = client(URL(string: "https://api.test")!, transport: transport)
        let error = await #expect(throws: NetworkError.self) {
            try await api.send(Endpoint<User>(path: "users/1", options: RequestOptions(cachePolicy: .cacheOnly)))
        }
        guard case .notCached? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(transport.requests.isEmpty)
        for policy in [CachePolicy.cacheFirst, .networkFirst, .networkOnly] {
            _ = try await api.send(Endpoint<User>(path: "users/1", options: RequestOptions(cachePolicy: policy)))
        }
        #expect(transport.requests.count == 3)
        await api.shutdown()
    }

    @Test("a 401 to a request without credentials says they were refused; with the session's token, that the session ended")
    func unauthorizedMessages() async throws {
        let transport = ScriptedTransport(fallback: .status(401))
        let api = client(URL(string: "https://api.test")!, transport: transport) { $0.auth = AuthInterceptor { "token" } }
        let login = await #expect(throws: NetworkError.self) {
            try await api.send(Endpoint<EmptyResponse>(path: "auth/login", method: .post, body: ["password": "wrong"],
                                                        options: RequestOptions(requiresAuth: false)))
        }
        #expect(login?.userMessage(using: .english) == UserMessages.english.credentialsRejected)
        #expect(login?.userMessage(using: .spanish) == UserMessages.spanish.credentialsRejected)
        let expired = await #expect(throws: NetworkError.self) { try await api.send(Endpoint<EmptyResponse>(path: "me")) }
        guard case .unauthorized(let response?)? = expired else { Issue.record("got \(String(describing: expired))"); return }
        #expect(response.status == 401)
        #expect(expired?.userMessage(using: .english) == UserMessages.english.unauthorized)
        #expect(transport.requests.map { $0.headers["Authorization"] } == [nil, "Bearer token"])
        await api.shutdown()
    }

    @Test("snake case and ISO8601 coding")
    func snakeCaseAndISO8601Coding() async throws {
        struct Event: Codable, Sendable, Equatable { let eventName: String; let startsAt: Date }
        let transport = InMemoryTransport { request throws(NetworkError) in
            HTTPResponse(status: 200, body: request.body ?? Data())
        }
        let api = client(URL(string: "https://api.test")!, transport: transport) { $0.json = JSONCoding(keys: .snakeCase, dates: .iso8601) }
        let sent = Event(eventName: "launch", startsAt: Date(timeIntervalSince1970: 1_800_000_000))
        let request = try api.makeRequest(Endpoint<Event>(path: "events", method: .post, body: sent).untyped)
        #expect(String(decoding: request.body ?? Data(), as: UTF8.self) == #"{"event_name":"launch","starts_at":"2027-01-15T08:00:00Z"}"#)
        #expect(try await api.send(Endpoint<Event>(path: "events", method: .post, body: sent)).value == sent)
        await api.shutdown()
    }
}

extension APIClientTests {
    @Test("plain HTTP to a remote host is refused before sending")
    func plainHTTPToARemoteHostIsRefusedBeforeSending() async throws {
        let transport = ScriptedTransport()
        let api = client(URL(string: "http://example.com")!, transport: transport)
        let error = await #expect(throws: NetworkError.self) { try await api.send(Endpoint<User>(path: "users/1")) }
        guard case .securityError(let reason)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(reason.contains("example.com"))
        #expect(transport.requests.isEmpty)
        await api.shutdown()
    }

    @Test("plain HTTP to loopback is allowed and auth is added")
    func plainHTTPToLoopbackIsAllowedAndAuthIsAdded() async throws {
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

    @Test("an interceptor that moves a request to another origin sends it without the token")
    func aRequestMovedToAnotherOriginCarriesNoToken() async throws {
        struct MoveToMirror: RequestInterceptor {
            func intercept(_ request: HTTPRequest, context: RequestContext) throws(NetworkError) -> RequestInterception {
                var moved = request
                moved.url = URL(string: "https://mirror.example.org/v1/me")!
                return .proceed(moved)
            }
        }
        let transport = ScriptedTransport()
        transport.script("/v1/me", [.json(#"{"id":9,"name":"Cy"}"#)])
        let api = client(URL(string: "https://api.example.com")!, transport: transport) {
            $0.auth = AuthInterceptor { "tok-123" }
            $0.requestInterceptors = [MoveToMirror()]
        }
        _ = try await api.send(Endpoint<User>(path: "me", version: .v1))
        let sent = try #require(transport.requests(to: "/v1/me").first)
        #expect(sent.url.host == "mirror.example.org")
        #expect(sent.headers["Authorization"] == nil)
        await api.shutdown()
    }

    @Test("a call's tags reach the interceptors of every attempt, and are never sent")
    func tagsReachEveryAttempt() async throws {
        struct Tenant: Sendable { let name: String }
        struct Seen: Sendable { let attempt: Int; let tenant: String? }
        final class Recorder: RequestInterceptor, ResponseInterceptor {
            let seen = Locked<[Seen]>([])
            func intercept(_ request: HTTPRequest, context: RequestContext) -> RequestInterception {
                seen.withLock { $0.append(Seen(attempt: context.attempt, tenant: context.tags[Tenant.self]?.name)) }
                return .proceed(request)
            }
            func intercept(_ response: HTTPResponse, to request: HTTPRequest, context: RequestContext) -> HTTPResponse {
                seen.withLock { $0.append(Seen(attempt: -context.attempt, tenant: context.tags[Tenant.self]?.name)) }
                return response
            }
        }
        let transport = ScriptedTransport()
        transport.script("/v1/me", [.status(503), .json(#"{"id":9,"name":"Cy"}"#)])
        let recorder = Recorder()
        let api = client(URL(string: "https://api.example.com")!, transport: transport) {
            $0.requestInterceptors = [recorder]
            $0.responseInterceptors = [recorder]
        }
        var options = RequestOptions()
        options.tags[Tenant.self] = Tenant(name: "acme")
        #expect(options.tags[String.self] == nil && !options.tags.isEmpty)
        _ = try await api.send(Endpoint<User>(path: "me", version: .v1, options: options))
        _ = try await api.send(Endpoint<User>(path: "me", version: .v1))
        let seen = recorder.seen.withLock { $0 }
        #expect(seen.map(\.attempt) == [1, -1, 2, -2, 1, -1])
        #expect(seen.map(\.tenant) == ["acme", "acme", "acme", "acme", nil, nil])
        #expect(transport.requests.allSatisfy { !$0.headers.contains { $0.value == "acme" } })
        await api.shutdown()
    }

    @Test("a captured log holds no secret")
    func aCapturedLogHoldsNoSecret() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/login", [.json(200, #"{"id":1,"name":"Ada","access_token":"srv-tok"}"#, headers: ["Set-Cookie": "sid=cookie-secret"])])
            let logger = CapturingLogger()
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
            let text = logger.allText
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

extension APIClientTests {
    @Test("a decoded call returns the response's status and headers with the value")
    func aDecodedCallReturnsTheResponsesStatusAndHeadersWithTheValue() async throws {
        try await withScriptedServer { server in
            try await server.script("/users/1", [.json(200, #"{"id":1,"name":"Ada"}"#, headers: ["ETag": "\"v7\""])])
            let api = client(server.baseURL)
            let response = try await api.send(Endpoint<User>(path: "users/1"))
            #expect(response.value == User(id: 1, name: "Ada"))
            #expect(response.status == 200)
            #expect(response.headers["etag"] == "\"v7\"")
            #expect(response.response.body == Data(#"{"id":1,"name":"Ada"}"#.utf8))
            await api.shutdown()
        }
    }

    @Test("the raw call returns the body undecoded")
    func theRawCallReturnsTheBodyUndecoded() async throws {
        let transport = InMemoryTransport(always: HTTPResponse(status: 200, body: Data("not json".utf8)))
        let api = client(URL(string: "https://api.test")!, transport: transport)
        let raw = try await api.data(for: Endpoint<User>(path: "users/1"))
        #expect(String(decoding: raw.body, as: UTF8.self) == "not json")
        await #expect(throws: NetworkError.self) { try await api.send(Endpoint<User>(path: "users/1")) }
        await api.shutdown()
    }

    @Test("retry policy never in the options makes exactly one attempt")
    func retryPolicyNeverInTheOptionsMakesExactlyOneAttempt() async throws {
        let transport = ScriptedTransport()
        transport.script("/flaky", [.status(503), .status(200)])
        let api = client(URL(string: "https://api.test")!, transport: transport)   // the client retries
        let endpoint = Endpoint<EmptyResponse>(path: "flaky", options: RequestOptions(retryPolicy: .never))
        let error = await #expect(throws: NetworkError.self) { try await api.send(endpoint) }
        #expect(error?.statusCode == 503)
        #expect(transport.requests(to: "/flaky").count == 1)
        await api.shutdown()
    }

    @Test("the client's response size limit holds over any transport")
    func theClientsResponseSizeLimitHoldsOverAnyTransport() async throws {
        // A transport that ignores the request's limit: the pipeline still refuses the body.
        struct Careless: HTTPTransport {
            func send(_ request: HTTPRequest) async throws(NetworkError) -> HTTPResponse {
                HTTPResponse(status: 200, body: Data(count: 2_000))
            }
        }
        let scripted = ScriptedTransport()
        scripted.script("/big", [.status(200, body: String(repeating: "x", count: 2_000))])
        for transport in [Careless(), scripted] as [any HTTPTransport] {
            let api = client(URL(string: "https://api.test")!, transport: transport) { $0.limits.maxResponseBytes = 1_000 }
            let error = await #expect(throws: NetworkError.self) { try await api.data(for: Endpoint<EmptyResponse>(path: "big")) }
            guard case .responseTooLarge(1_000)? = error else { Issue.record("got \(String(describing: error))"); return }
            await api.shutdown()
        }
        #expect(scripted.requests.first?.maximumResponseSize == 1_000)
    }

    @Test("runtime errors become the network errors of the same name")
    func runtimeErrorsBecomeTheNetworkErrorsOfTheSameName() {
        guard case .componentUnavailable("Cache") = NetworkError(answer: RuntimeError.componentUnavailable("Cache")),
              case .componentRestarted("Cache") = NetworkError(answer: RuntimeError.componentRestarted("Cache")),
              case .overloaded = NetworkError(answer: NetworkError.overloaded),
              case .unknown = NetworkError(answer: CancellationError())
        else {
            Issue.record("runtime errors were not mapped")
            return
        }
    }

    @Test("after shutdown every call is answered component unavailable")
    func afterShutdownEveryCallIsAnsweredComponentUnavailable() async throws {
        let api = client(URL(string: "https://api.test")!, transport: InMemoryTransport(always: HTTPResponse(status: 204)))
        await api.shutdown()
        let error = await #expect(throws: NetworkError.self) { try await api.data(for: Endpoint<EmptyResponse>(path: "x")) }
        guard case .componentUnavailable("RequestPipeline")? = error else { Issue.record("got \(String(describing: error))"); return }
    }
}

extension APIClientTests {
    @Test("a 304 to a conditional request is returned raw and is notModified when decoding")
    func a304ToAConditionalRequestIsReturnedRawAndIsNotModifiedWhenDecoding() async throws {
        try await withScriptedServer { server in
            try await server.script("/users/1", [.status(304, headers: ["ETag": "\"v2\""])])
            let api = client(server.baseURL)
            let endpoint = Endpoint<User>(path: "users/1", headers: ["If-None-Match": "\"v1\""])
            let raw = try await api.data(for: endpoint)
            #expect(raw.status == 304)
            #expect(raw.headers["ETag"] == "\"v2\"")
            let error = await #expect(throws: NetworkError.self) { try await api.send(endpoint) }
            guard case .notModified(let response)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(response.headers["ETag"] == "\"v2\"")
            #expect(try await server.requests(path: "/users/1").first?.header("If-None-Match") == "\"v1\"")
            await api.shutdown()
        }
    }

    @Test("a path segment may contain a slash")
    func aPathSegmentMayContainASlash() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/files/reports%2F2026.pdf", [.status(204)])
            try await server.script("/v1/files/a/b", [.status(204)])
            let api = client(server.baseURL)
            _ = try await api.data(for: Endpoint<EmptyResponse>(segments: ["files", "reports/2026.pdf"], version: .v1))
            _ = try await api.data(for: Endpoint<EmptyResponse>(path: "files/a/b", version: .v1))
            #expect(try await server.requests(path: "/v1/files/reports%2F2026.pdf").count == 1)
            #expect(try await server.requests(path: "/v1/files/a/b").count == 1)
            let error = await #expect(throws: NetworkError.self) {
                try await api.data(for: Endpoint<EmptyResponse>(segments: ["files", ".."]))
            }
            guard case .invalidURL? = error else { Issue.record("got \(String(describing: error))"); return }
            await api.shutdown()
        }
    }

    @Test("requests carry Courier's User-Agent unless they set their own")
    func requestsCarryCouriersUserAgentUnlessTheySetTheirOwn() async throws {
        try await withScriptedServer { server in
            try await server.script("/ping", [.status(204)])
            let api = client(server.baseURL)
            _ = try await api.data(for: Endpoint<EmptyResponse>(path: "ping"))
            _ = try await api.data(for: Endpoint<EmptyResponse>(path: "ping", headers: ["User-Agent": "MyApp/2.1"]))
            let agents = try await server.requests(path: "/ping").map { $0.header("User-Agent") }
            #expect(agents == [APIClient.Configuration.defaultUserAgent, "MyApp/2.1"])
            #if os(Linux)
            #expect(APIClient.Configuration.defaultUserAgent == "Courier/\(APIClient.Configuration.version) (Linux)")
            #endif
            await api.shutdown()
        }
    }
}

/// An executor whose jobs run on a queue of their own, which can tell whether it is the one
/// running (so a test can see where code ran).
@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, *)
private final class ProbeExecutor: SerialExecutor {
    static let shared = ProbeExecutor()
    private static let key = DispatchSpecificKey<Bool>()
    private let queue = DispatchQueue(label: "ProbeExecutor")

    private init() { queue.setSpecific(key: Self.key, value: true) }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }
}

/// A global actor on ``ProbeExecutor``: a caller's actor that is not the main actor (which, in
/// this test runner on Linux, is not bound to a thread a test can recognise).
@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, *)
@globalActor
private actor ProbeActor {
    static let shared = ProbeActor()
    nonisolated var unownedExecutor: UnownedSerialExecutor { ProbeExecutor.shared.asUnownedSerialExecutor() }
}

/// Decodes from any body, and remembers whether that happened on ``ProbeExecutor``.
@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, *)
private struct ExecutorProbe: Decodable, Sendable {
    let decodedOnCallersExecutor: Bool
    init(from decoder: any Decoder) throws { decodedOnCallersExecutor = ProbeExecutor.isCurrent }
}

/// Response forms read without a decoder: `Endpoint<String>` and `Endpoint<Data>`.
extension APIClientTests {
    @Test("Endpoint<String> reads text in the charset of its Content-Type, UTF-8 by default, and accepts any type")
    func anEndpointOfStringReadsText() async throws {
        try await withScriptedServer { server in
            try await server.script("/latin1", [.data(200, Data([0x63, 0x61, 0x66, 0xE9, 0x20, 0xA3]), headers: ["Content-Type": "text/plain; charset=iso-8859-1"])])
            try await server.script("/utf8", [.text(200, "naïve ✓", headers: ["Content-Type": "text/plain"])])
            try await server.script("/json-string", [.json(200, #""quoted""#)])
            try await server.script("/broken", [.data(200, Data([0x63, 0xE9]), headers: ["Content-Type": "text/plain"])])
            let api = client(server.baseURL, retryPolicy: .never)
            #expect(try await api.send(Endpoint<String>(path: "latin1")).value == "café £")
            #expect(try await api.send(Endpoint<String>(path: "utf8")).value == "naïve ✓")
            #expect(try await api.send(Endpoint<String>(path: "json-string")).value == #""quoted""#)   // the text, not JSON-decoded
            let error = await #expect(throws: NetworkError.self) { try await api.send(Endpoint<String>(path: "broken")) }
            guard case .decodingError(let cause, _)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(cause is HTTPResponse.UndecodableText)
            #expect(try await server.requests(path: "/latin1").first?.header("Accept") == "*/*")
            await api.shutdown()
        }
    }

    @Test("Endpoint<Data> returns the raw body, whatever its bytes; JSON endpoints still accept JSON")
    func anEndpointOfDataReturnsTheRawBody() async throws {
        try await withScriptedServer { server in
            let bytes = Data([0x00, 0xFF, 0x22, 0x7B, 0x0A])
            try await server.script("/blob", [.data(200, bytes, headers: ["Content-Type": "application/octet-stream"])])
            try await server.script("/user", [.json(200, #"{"id":1,"name":"Ada"}"#)])
            let api = client(server.baseURL, retryPolicy: .never)
            let blob = try await api.send(Endpoint<Data>(path: "blob"))
            #expect(blob.value == bytes)
            #expect(blob.response.body == bytes)
            #expect(try await api.send(Endpoint<User>(path: "user")).value == User(id: 1, name: "Ada"))
            #expect(try await server.requests(path: "/blob").first?.header("Accept") == "*/*")
            #expect(try await server.requests(path: "/user").first?.header("Accept") == "application/json")
            await api.shutdown()
        }
    }
}
