import CourierTesting
import Foundation
import Testing

@testable import Courier

/// The request chain: the order of its steps, the steps each client runs, and what a request
/// carries back (its id and metrics), over real HTTP against the scripted server.
@Suite(.timeLimit(.minutes(5))) struct RequestChainTests {
    private struct Item: Codable, Sendable, Equatable { let n: Int }

    /// Records which interceptor saw the request, and what it carried, in order.
    private struct Recorder: RequestInterceptor, ResponseInterceptor {
        let name: String
        let seen: Locked<[String]>
        var answer: HTTPResponse?

        func intercept(_ request: HTTPRequest, context: RequestContext) async throws -> RequestInterception {
            seen.withLock { $0.append("\(name) out auth=\(request.headers.contains("Authorization"))") }
            if let answer { return .respond(answer) }
            return .proceed(request)
        }

        func intercept(_ response: HTTPResponse, to request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse {
            seen.withLock { $0.append("\(name) back \(response.status)") }
            return response
        }
    }

    /// The names of a client's steps, in order.
    private func stepNames(_ api: APIClient) -> [String] {
        api.components.chain.steps.map { "\(type(of: $0.step))" }
    }

    @Test("the built-in steps are one list, in order; a client runs only the steps it has something for")
    func stepsPerClient() async {
        let plain = client(URL(string: "http://127.0.0.1:9")!) { $0.security = nil }
        // Without a cache, GraphQL queries are coalesced in its place. Retries and the circuit
        // breaker are there for every client: a call may set either policy.
        #expect(stepNames(plain) == ["QueryCoalescingStep", "AdmissionStep", "RetryStep", "HedgingStep", "CircuitBreakerStep", "RedirectStep", "TransportStep"])
        await plain.shutdown()

        let full = client(URL(string: "http://127.0.0.1:9")!) {
            $0.caching = .init()
            $0.offline = .init()
            $0.logging = .init(logger: CapturingLogger())
            $0.requestInterceptors = [Recorder(name: "user", seen: Locked([]))]
            $0.interceptors = [ProceedTwice()]
            $0.auth = AuthInterceptor(token: { "token" })
        }
        #expect(stepNames(full) == [
            "OfflineGate", "ConnectivityStep", "CacheStep", "AdmissionStep", "RetryStep", "HedgingStep", "CircuitBreakerStep", "InterceptorLists",
            "ProceedTwice", "RedirectStep", "SecurityGuard", "AuthStep", "LoggingInterceptor", "TransportStep",
        ])
        #expect(full.components.chain.steps.map(\.isUsers) == Array(repeating: false, count: 8) + [true] + Array(repeating: false, count: 5))
        await full.shutdown()
    }

    /// Breaks the chain's contract: passes the request on twice.
    private struct ProceedTwice: Interceptor {
        func intercept(_ request: HTTPRequest, chain: InterceptorChain) async throws -> HTTPResponse {
            _ = try await chain.proceed(request)
            return try await chain.proceed(request)
        }
    }

    @Test("a step that calls proceed twice in one attempt fails the request; the transport saw one exchange")
    func proceedAtMostOnce() async throws {
        let exchanges = Locked(0)
        let transport = InMemoryTransport { _ throws(NetworkError) in
            exchanges.withLock { $0 += 1 }
            return HTTPResponse(status: 204)
        }
        let api = client(URL(string: "https://api.test")!, transport: transport) { $0.interceptors = [ProceedTwice()] }
        let error = await #expect(throws: NetworkError.self) { try await api.data(for: Endpoint<EmptyResponse>(path: "x")) }
        guard case .invalidRequest(let reason)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(reason.contains("ProceedTwice"))
        #expect(exchanges.withLock { $0 } == 1)
        await api.shutdown()
    }

    @TaskLocal static var traceID: String?

    /// Records the caller's task-local value where it runs.
    private struct TaskLocalRecorder: Interceptor {
        let seen: Locked<[String?]>
        func intercept(_ request: HTTPRequest, chain: InterceptorChain) async throws -> HTTPResponse {
            seen.withLock { $0.append(RequestChainTests.traceID) }
            return try await chain.proceed(request)
        }
    }

    /// Records the caller's task-local value at the transport.
    private struct TaskLocalTransport: HTTPTransport {
        let seen: Locked<[String?]>
        func send(_ request: HTTPRequest) async throws(NetworkError) -> HTTPResponse {
            seen.withLock { $0.append(RequestChainTests.traceID) }
            return HTTPResponse(status: 204)
        }
    }

    @Test("through the cache too: a miss's fetch, and a stale entry's background revalidation, carry the caller's task-locals")
    func taskLocalsReachTheTransportThroughTheCache() async throws {
        let atTransport = Locked<[String?]>([])
        let clock = ManualClock()
        let transport = InMemoryTransport { _ throws(NetworkError) in
            atTransport.withLock { $0.append(RequestChainTests.traceID) }
            return HTTPResponse(status: 200, headers: ["Cache-Control": "max-age=10, stale-while-revalidate=60"], body: Data("{}".utf8))
        }
        let api = client(URL(string: "https://api.test")!, transport: transport, clock: clock) { $0.caching = .init() }
        try await RequestChainTests.$traceID.withValue("miss") {
            _ = try await api.data(for: Endpoint<Data>(path: "x"))
        }
        clock.advance(by: .seconds(20))   // stale, within stale-while-revalidate
        try await RequestChainTests.$traceID.withValue("revalidation") {
            _ = try await api.data(for: Endpoint<Data>(path: "x"))
        }
        await waitUntil { atTransport.withLock { $0.count } == 2 }
        #expect(atTransport.withLock { $0 } == ["miss", "revalidation"])
        await api.shutdown()
    }

    @Test("a task-local value the caller set is visible in every interceptor and at the transport")
    func taskLocalsReachEveryStep() async throws {
        let (atInterceptor, atTransport) = (Locked<[String?]>([]), Locked<[String?]>([]))
        let api = client(URL(string: "https://api.test")!, transport: TaskLocalTransport(seen: atTransport)) {
            $0.interceptors = [TaskLocalRecorder(seen: atInterceptor)]
            $0.retryPolicy = .never
        }
        try await RequestChainTests.$traceID.withValue("trace-1") {
            _ = try await api.data(for: Endpoint<EmptyResponse>(path: "x"))
        }
        _ = try await api.data(for: Endpoint<EmptyResponse>(path: "y"))
        #expect(atInterceptor.withLock { $0 } == ["trace-1", nil])
        #expect(atTransport.withLock { $0 } == ["trace-1", nil])
        await api.shutdown()
    }

    @Test("user interceptors see the request before auth; the response comes back through them last")
    func interceptorsBeforeAuth() async throws {
        try await withScriptedServer { server in
            try await server.script("/items/1", [.json(200, #"{"n":1}"#)])
            let seen = Locked<[String]>([])
            let recorder = Recorder(name: "user", seen: seen)
            let api = client(server.baseURL, retryPolicy: .never) {
                $0.requestInterceptors = [recorder]
                $0.responseInterceptors = [recorder]
                $0.auth = AuthInterceptor(token: { "token" })
            }
            #expect(try await api.send(Endpoint<Item>(path: "items/1")).value == Item(n: 1))
            #expect(seen.withLock { $0 } == ["user out auth=false", "user back 200"])
            // Auth ran after the user's interceptor: the server saw the credential.
            #expect(try await server.requests(path: "/items/1").first?.header("Authorization") == "Bearer token")
            await api.shutdown()
        }
    }

    @Test("an interceptor that answers ends the way out: nothing is sent, the response interceptors still see it")
    func interceptorAnswers() async throws {
        try await withScriptedServer { server in
            let seen = Locked<[String]>([])
            let answering = Recorder(name: "stub", seen: seen, answer: HTTPResponse(status: 200, body: Data(#"{"n":7}"#.utf8)))
            let api = client(server.baseURL, retryPolicy: .never) {
                $0.requestInterceptors = [answering]
                $0.responseInterceptors = [Recorder(name: "after", seen: seen)]
            }
            let response = try await api.send(Endpoint<Item>(path: "items/7"))
            #expect(response.value == Item(n: 7))
            #expect(seen.withLock { $0 } == ["stub out auth=false", "after back 200"])
            #expect(try await server.requests(path: "/items/7").isEmpty)
            #expect(response.metrics?.attempts == 1)
            #expect(response.metrics?.redirects == 0)
            await api.shutdown()
        }
    }

    @Test("a response carries its request's id (the one its events carry), its attempts, redirects and duration")
    func metrics() async throws {
        try await withScriptedServer { server in
            try await server.script("/old", [.redirect(302, to: "/flaky")])
            try await server.script("/flaky", [.status(503), .json(200, #"{"n":2}"#)])
            let api = client(server.baseURL)
            let events = api.events()
            let response = try await api.send(Endpoint<Item>(path: "old"))
            let metrics = try #require(response.metrics)
            #expect(response.value == Item(n: 2))
            #expect(metrics.attempts == 2)
            #expect(metrics.redirects == 1)
            #expect(metrics.duration > .zero)
            let seen = await collect(events) { if case .finished = $0.last { true } else { false } }
            guard case .finished(let id, _, let attempts, let duration)? = seen.last else { Issue.record("got \(seen)"); return }
            #expect(id == metrics.id)
            #expect(attempts == 2)
            #expect(duration == metrics.duration)
            await api.shutdown()
        }
    }

    @Test("an error status carries its response's metrics; a fresh hit from the cache carries none")
    func metricsOfErrorsAndHits() async throws {
        try await withScriptedServer { server in
            try await server.script("/missing", [.status(404)])
            try await server.script("/cached", [.json(200, #"{"n":3}"#, headers: ["Cache-Control": "max-age=60"])])
            let api = client(server.baseURL, retryPolicy: .never) { $0.caching = .init() }
            let events = api.events()
            let error = await #expect(throws: NetworkError.self) { try await api.send(Endpoint<Item>(path: "missing")) }
            let failed = await collect(events) { if case .failed = $0.last { true } else { false } }
            #expect(error?.response?.metrics?.id == failed.last?.id)
            #expect(error?.response?.metrics?.attempts == 1)

            let fetched = try await api.send(Endpoint<Item>(path: "cached"))
            #expect(fetched.metrics?.attempts == 1)
            let hit = try await api.send(Endpoint<Item>(path: "cached"))
            #expect(hit.value == Item(n: 3))
            #expect(hit.metrics == nil)
            #expect(try await server.requests(path: "/cached").count == 1)
            await api.shutdown()
        }
    }

    @Test("a queued write's replay enters at admission: sent once, not queued again, and it invalidates the cache")
    func replayEntersAtAdmission() async throws {
        try await withScriptedServer { server in
            try await server.script("/items", [.json(201, "{}")])
            try await server.script("/items", method: "GET", [.json(200, #"{"n":1}"#, headers: ["Cache-Control": "max-age=60"])])
            let api = client(server.baseURL, retryPolicy: .never, clock: ManualClock()) {
                $0.connectivity = .init(debounce: .zero, watchesLink: false)
                $0.offline = .init()
                $0.caching = .init()
            }
            _ = try await api.send(Endpoint<Item>(path: "items"))
            let id = try await api.offline.enqueue(Endpoint<EmptyResponse>(path: "items", method: .post, body: ["n": 2]))
            #expect(id == 1)
            // The enqueue may start a drain of its own (the monitor says online): whichever
            // drain replays it, once `sync` returns it has been sent once and has left.
            _ = try await api.offline.sync()
            #expect(try await api.offline.items().isEmpty)
            #expect(try await server.requests(path: "/items").filter { $0.method == "POST" }.count == 1)
            // The replayed write made the stored GET stale: the next read asks the server.
            _ = try await api.send(Endpoint<Item>(path: "items"))
            #expect(try await server.requests(path: "/items").filter { $0.method == "GET" }.count == 2)
            await api.shutdown()
        }
    }

    @Test("a queued GET or custom-method write is replayed to the server, never answered by the cache")
    func replayIsNeverCached() async throws {
        try await withScriptedServer { server in
            try await server.script("/items", method: "GET", [.json(200, #"{"n":1}"#, headers: ["Cache-Control": "max-age=60"])])
            try await server.script("/items", method: "MERGE", [.json(200, "{}")])
            let api = client(server.baseURL, retryPolicy: .never, clock: ManualClock()) {
                $0.connectivity = .init(debounce: .zero, watchesLink: false)
                $0.offline = .init()
                $0.caching = .init()
            }
            _ = try await api.send(Endpoint<Item>(path: "items"))   // now fresh on the shelf
            try api.connectivity.report(.offline)
            _ = try await settledConnectivity(api)
            _ = try await api.offline.enqueue(Endpoint<EmptyResponse>(path: "items"))
            _ = try await api.offline.enqueue(Endpoint<EmptyResponse>(path: "items", method: HTTPMethod(rawValue: "MERGE")))
            #expect(try await api.offline.sync().done == 2)
            #expect(try await server.requests(path: "/items").filter { $0.method == "GET" }.count == 2)
            #expect(try await server.requests(path: "/items").filter { $0.method == "MERGE" }.count == 1)
            // The custom-method write made the stored GET stale.
            _ = try await api.send(Endpoint<Item>(path: "items"))
            #expect(try await server.requests(path: "/items").filter { $0.method == "GET" }.count == 3)
            await api.shutdown()
        }
    }

    @Test("a GET the cache fetches and cannot send tells the monitor offline only when the OS says so, not when it is refused")
    func cachedFetchFailureIsLearnt() async throws {
        let refusing = client(URL(string: "http://127.0.0.1:9")!, retryPolicy: .never) {
            $0.caching = .init()
            $0.connectivity = .init(debounce: .zero, watchesLink: false)
        }
        let refused = await #expect(throws: NetworkError.self) { try await refusing.send(Endpoint<Item>(path: "items/1")) }
        guard case .cannotConnect("127.0.0.1", 9, .refused, _)? = refused else { Issue.record("got \(String(describing: refused))"); return }
        #expect(try await settledConnectivity(refusing) == .unknown)
        await refusing.shutdown()

        let offline = ScriptedTransport(fallback: .fail(.noConnection(underlying: nil)))
        let api = client(URL(string: "http://127.0.0.1:9")!, transport: offline, retryPolicy: .never) {
            $0.caching = .init()
            $0.connectivity = .init(debounce: .zero, watchesLink: false)
        }
        let error = await #expect(throws: NetworkError.self) { try await api.send(Endpoint<Item>(path: "items/1")) }
        guard case .noConnection? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(try await settledConnectivity(api) == .offline)
        await api.shutdown()
    }

    @Test("a cached GET's network answer tells the monitor it is back online")
    func cachedFetchSuccessIsLearnt() async throws {
        try await withScriptedServer { server in
            let base = try await server.switchableURL(up: false)
            try await server.script("/items/1", [.json(200, #"{"n":1}"#)])
            let api = client(base, retryPolicy: .never) {
                $0.caching = .init()
                $0.connectivity = .init(debounce: .zero, watchesLink: false)
            }
            try api.connectivity.report(.offline)
            #expect(try await settledConnectivity(api) == .offline)
            await #expect(throws: NetworkError.self) { try await api.send(Endpoint<Item>(path: "items/1")) }
            #expect(try await settledConnectivity(api) == .offline)   // a refusal does not say online either
            try await server.setSwitchable(up: true)
            #expect(try await api.send(Endpoint<Item>(path: "items/1")).value == Item(n: 1))
            #expect(try await settledConnectivity(api) == .online)
            await api.shutdown()
        }
    }
}
