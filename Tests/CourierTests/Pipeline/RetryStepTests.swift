import CourierTesting
import Foundation
import Testing

@testable import Courier

@Suite(.timeLimit(.minutes(5))) struct RetryStepTests {
    @Test("retries are counted at the server")
    func retriesAreCountedAtTheServer() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/users/1", [.status(503), .status(503), .json(200, #"{"id":1,"name":"Ada"}"#)])
            let api = client(server.baseURL)
            let user = try await api.send(Endpoint<User>(path: "users/1", version: .v1)).value
            #expect(user == User(id: 1, name: "Ada"))
            #expect(try await server.requests(path: "/v1/users/1").count == 3)
            await api.shutdown()
        }
    }

    @Test("exhausted attempts end in server error")
    func exhaustedAttemptsEndInServerError() async throws {
        try await withScriptedServer { server in
            try await server.script("/flaky", [.json(503, #"{"message":"maintenance","code":"M1"}"#)])
            let api = client(server.baseURL)
            let error = await #expect(throws: NetworkError.self) { try await api.send(Endpoint<User>(path: "flaky")) }
            guard case .serverError(let response)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(response.status == 503)
            #expect(error?.serverMessage == "maintenance")
            #expect(error?.serverCode == "M1")
            #expect(try await server.requests(path: "/flaky").count == 3)
            await api.shutdown()
        }
    }

    @Test("retry after is honoured on the injected clock")
    func retryAfterIsHonouredOnTheInjectedClock() async throws {
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

    @Test("post is not retried unless it carries an idempotency key")
    func postIsNotRetriedUnlessItCarriesAnIdempotencyKey() async throws {
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

    @Test("a total deadline covers every attempt")
    func aTotalDeadlineCoversEveryAttempt() async throws {
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

    @Test("the retry budget stops a retry storm")
    func theRetryBudgetStopsARetryStorm() async throws {
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

    @Test("an interceptor added idempotency key makes a post retryable")
    func anInterceptorAddedIdempotencyKeyMakesAPostRetryable() async throws {
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

    @Test("interceptors written the obvious way (async throws) run, and what they throw arrives in the error model")
    func interceptorsThatThrowAnyError() async throws {
        struct Unreadable: Error {}
        struct TenantHeader: RequestInterceptor {
            let tenant: @Sendable () async throws -> String
            func intercept(_ request: HTTPRequest, context: RequestContext) async throws -> RequestInterception {
                var request = request
                request.headers["X-Tenant"] = try await tenant()
                return .proceed(request)
            }
        }
        struct RejectTeapots: ResponseInterceptor {
            func intercept(_ response: HTTPResponse, to request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse {
                if response.status == 418 { throw Unreadable() }
                return response
            }
        }
        let transport = ScriptedTransport(fallback: .status(204))
        transport.script("/teapot", [.status(418)])
        func api(_ tenant: @escaping @Sendable () async throws -> String) -> APIClient {
            client(URL(string: "https://api.test")!, transport: transport, retryPolicy: .never) {
                $0.requestInterceptors = [TenantHeader(tenant: tenant)]
                $0.responseInterceptors = [RejectTeapots()]
            }
        }
        let working = api { "acme" }
        _ = try await working.data(for: Endpoint<EmptyResponse>(path: "ok"))
        #expect(transport.requests(to: "/ok").first?.headers["X-Tenant"] == "acme")
        let teapot = await #expect(throws: NetworkError.self) { try await working.data(for: Endpoint<EmptyResponse>(path: "teapot")) }
        guard case .unknown(let cause)? = teapot else { Issue.record("got \(String(describing: teapot))"); return }
        #expect(cause is Unreadable)
        await working.shutdown()

        let failing = api { throw NetworkError.unauthorized(nil) }
        let refused = await #expect(throws: NetworkError.self) { try await failing.data(for: Endpoint<EmptyResponse>(path: "ok")) }
        guard case .unauthorized(nil)? = refused else { Issue.record("got \(String(describing: refused))"); return }
        let cancelled = api { throw CancellationError() }
        let stopped = await #expect(throws: NetworkError.self) { try await cancelled.data(for: Endpoint<EmptyResponse>(path: "ok")) }
        guard case .cancelled? = stopped else { Issue.record("got \(String(describing: stopped))"); return }
        #expect(transport.requests(to: "/ok").count == 1)   // neither failing interceptor let a request out
        await failing.shutdown()
        await cancelled.shutdown()
    }
}
