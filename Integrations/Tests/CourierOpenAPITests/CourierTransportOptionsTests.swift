import Courier
import CourierOpenAPI
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// Per-operation options of ``CourierTransport``, against the scripted server.
@Suite(.timeLimit(.minutes(5))) struct CourierTransportOptionsTests {
    @Test("an operation's retry policy applies: a POST with an Idempotency-Key that meets a 503 is sent again, its body whole")
    func retryResendsBody() async throws {
        let server = try await LoopbackServer.start(script: "scripted_server.py")
        defer { server.stop() }
        let control = ScriptedControl(baseURL: server.baseURL)
        try await control.script("/users", method: "POST", [
            .json(503, #"{"code":"busy","message":"later"}"#), .json(201, #"{"id":4,"name":"Bo"}"#),
        ])
        let api = courierClient(server.baseURL)
        var createUser = OperationOptions()
        createUser.request.retryPolicy = RetryPolicy(maxAttempts: 3, retryableStatusCodes: [503], backoff: .immediate, jitter: false)
        let client = generatedClient(
            server.baseURL, CourierTransport(client: api, options: ["createUser": createUser]), middlewares: [IdempotencyKeyMiddleware()])

        let output = try await client.createUser(body: .json(.init(name: "Bo")))
        #expect(try output.created.body.json.id == 4)
        // Without this operation's policy the client's (no retries) would have returned the 503.
        let sent = try await control.requests(path: "/users")
        #expect(sent.count == 2)
        let bodies = try sent.map { try JSONSerialization.jsonObject(with: $0.body) as? [String: String] }
        #expect(bodies == [["name": "Bo"], ["name": "Bo"]])
        await api.shutdown()
    }

    @Test("an operation without options keeps the client's: the 503 comes back as the generated client's undocumented status")
    func defaultOptionsReturnTheStatus() async throws {
        let server = try await LoopbackServer.start(script: "scripted_server.py")
        defer { server.stop() }
        let control = ScriptedControl(baseURL: server.baseURL)
        try await control.script("/users", method: "POST", [.json(503, #"{"code":"busy","message":"later"}"#)])
        let api = courierClient(server.baseURL)
        let client = generatedClient(server.baseURL, CourierTransport(client: api))

        let output = try await client.createUser(body: .json(.init(name: "Bo")))

        guard case .undocumented(let status, _) = output else {
            Issue.record("expected the 503 as undocumented, got \(output)")
            return
        }
        #expect(status == 503)
        #expect(try await control.requests(path: "/users").count == 1)
        await api.shutdown()
    }

    @Test("an operation given a cache policy goes through the client's cache: a fresh answer is served again without a request")
    func cachePolicy() async throws {
        let server = try await LoopbackServer.start(script: "scripted_server.py")
        defer { server.stop() }
        let control = ScriptedControl(baseURL: server.baseURL)
        var reply = ScriptedControl.Reply.json(200, #"{"id":8,"name":"Cy"}"#)
        reply.headers?["Cache-Control"] = "max-age=600"
        try await control.script("/users/8", [reply])
        let api = courierClient(server.baseURL) { $0.caching = .init() }
        var getUser = OperationOptions()
        getUser.request.cachePolicy = .cacheFirst
        let client = generatedClient(server.baseURL, CourierTransport(client: api, options: ["getUser": getUser]))

        let first = try await client.getUser(path: .init(userId: 8)).ok.body.json
        let second = try await client.getUser(path: .init(userId: 8)).ok.body.json

        #expect(first == second && first.name == "Cy")
        #expect(try await control.requests(path: "/users/8").count == 1)
        await api.shutdown()
    }
}

/// Gives every request an `Idempotency-Key`, so that Courier may retry a POST.
struct IdempotencyKeyMiddleware: ClientMiddleware {
    func intercept(
        _ request: HTTPTypes.HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPTypes.HTTPRequest, HTTPBody?, URL) async throws -> (HTTPTypes.HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPTypes.HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[HTTPField.Name("Idempotency-Key")!] = UUID().uuidString
        return try await next(request, body, baseURL)
    }
}
