import Courier
import CourierMetrics
import CourierOpenAPI
import Foundation
import HTTPTypes
import MetricsTestKit
import OpenAPIRuntime
import Testing

/// The generated client of `Generated/openapi.yaml` over ``CourierTransport``, against the root
/// package's scripted server on loopback.
@Suite(.timeLimit(.minutes(5))) struct CourierTransportScriptedTests {
    @Test("GET with path and query parameters: the typed answer, the query as generated, the operation tagged for interceptors, middlewares before Courier's chain")
    func getWithParameters() async throws {
        let server = try await LoopbackServer.start(script: "scripted_server.py")
        defer { server.stop() }
        let control = ScriptedControl(baseURL: server.baseURL)
        try await control.script("/users/42", [.json(200, #"{"id":42,"name":"Ada"}"#)])
        let seen = SeenRequests()
        let api = courierClient(server.baseURL) { $0.requestInterceptors = [RecordingInterceptor(seen: seen)] }
        let client = generatedClient(server.baseURL, CourierTransport(client: api), middlewares: [StampingMiddleware()])

        let output = try await client.getUser(path: .init(userId: 42), query: .init(fields: ["id", "name"], verbose: true))

        let user = try output.ok.body.json
        #expect(user.id == 42 && user.name == "Ada")
        let received = try await control.requests(path: "/users/42")
        #expect(received.map(\.path) == ["/users/42?fields=id&fields=name&verbose=true"])
        #expect(received.first?.header("Accept") == "application/json")
        #expect(await seen.operations == ["getUser"])
        // The runtime's middleware ran first: Courier's interceptor saw its header.
        #expect(await seen.headers.first?["X-Middleware"] == "getUser")
        await api.shutdown()
    }

    @Test("the operationID names the call in its started event and labels its metrics (operation), not its path")
    func operationInEventsAndMetrics() async throws {
        let server = try await LoopbackServer.start(script: "scripted_server.py")
        defer { server.stop() }
        let control = ScriptedControl(baseURL: server.baseURL)
        try await control.script("/users/7", [.json(200, #"{"id":7,"name":"Bo"}"#)])
        let metrics = TestMetrics()
        let api = courierClient(server.baseURL)
        let events = api.events()
        let exporter = CourierMetrics(client: api, factory: metrics)
        let exported = Task { await exporter.run(pollingEvery: nil) }
        let client = generatedClient(server.baseURL, CourierTransport(client: api))

        _ = try await client.getUser(path: .init(userId: 7), query: .init())
        await api.shutdown()
        await exported.value

        var operations: [String?] = []
        for await event in events { if case .started(_, _, _, let operation) = event { operations.append(operation) } }
        #expect(operations == ["getUser"])
        let labelled = metrics.counters(label: "courier_requests_total").filter { counter in
            counter.dimensions.contains { $0.0 == "operation" && $0.1 == "getUser" }
        }
        #expect(labelled.map(\.totalValue) == [1])
        // No label carries the path.
        #expect(!metrics.counters.flatMap { $0.dimensions.map(\.1) }.contains { $0.contains("/") })
    }

    @Test("repeated response header fields reach the runtime one field each, in order")
    func repeatedHeaderFields() async throws {
        let server = try await LoopbackServer.start(script: "scripted_server.py")
        defer { server.stop() }
        let control = ScriptedControl(baseURL: server.baseURL)
        var reply = ScriptedControl.Reply.json(200, #"{"id":1,"name":"A"}"#)
        reply.headerList = [["X-Trace", "edge"], ["X-Trace", "origin"], ["Set-Cookie", "a=1"], ["Set-Cookie", "b=2"]]
        try await control.script("/users/1", [reply])
        let api = courierClient(server.baseURL)
        let transport = CourierTransport(client: api)
        var request = HTTPTypes.HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/users/1")
        request.headerFields.append(HTTPField(name: HTTPField.Name("X-Tag")!, value: "one"))
        request.headerFields.append(HTTPField(name: HTTPField.Name("X-Tag")!, value: "two"))

        let (response, body) = try await transport.send(request, body: nil, baseURL: server.baseURL, operationID: "getUser")

        #expect(response.status == .ok)
        #expect(response.headerFields[values: HTTPField.Name("X-Trace")!] == ["edge", "origin"])
        #expect(response.headerFields[values: .setCookie] == ["a=1", "b=2"])
        let bytes = try await Data(collecting: try #require(body), upTo: 1024)
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"id":1,"name":"A"}"#)
        let sent = try #require(try await control.requests(path: "/users/1").first)
        #expect(sent.headers.filter { $0.first == "X-Tag" }.map { $0[1] } == ["one", "two"])
        await api.shutdown()
    }

    @Test("an error status comes back as the generated client's typed case, its JSON body decoded")
    func typedErrorBody() async throws {
        let server = try await LoopbackServer.start(script: "scripted_server.py")
        defer { server.stop() }
        let control = ScriptedControl(baseURL: server.baseURL)
        try await control.script("/users/7", [.json(404, #"{"code":"missing","message":"no user 7"}"#)])
        let api = courierClient(server.baseURL)
        let client = generatedClient(server.baseURL, CourierTransport(client: api))

        let output = try await client.getUser(path: .init(userId: 7))

        let problem = try output.notFound.body.json
        #expect(problem.code == "missing" && problem.message == "no user 7")
        await api.shutdown()
    }

    @Test("a JSON POST sends the encoded body and decodes the 201")
    func jsonPost() async throws {
        let server = try await LoopbackServer.start(script: "scripted_server.py")
        defer { server.stop() }
        let control = ScriptedControl(baseURL: server.baseURL)
        try await control.script("/users", method: "POST", [.json(201, #"{"id":9,"name":"Grace"}"#)])
        let api = courierClient(server.baseURL)
        let client = generatedClient(server.baseURL, CourierTransport(client: api))

        let output = try await client.createUser(body: .json(.init(name: "Grace")))

        #expect(try output.created.body.json.id == 9)
        let sent = try #require(try await control.requests(path: "/users").first)
        #expect(sent.method == "POST")
        #expect(sent.header("Content-Type")?.hasPrefix("application/json") == true)
        let json = try JSONSerialization.jsonObject(with: sent.body) as? [String: String]
        #expect(json == ["name": "Grace"])
        await api.shutdown()
    }

    @Test("a multipart upload streams its parts (a file part larger than the transport's buffer) and arrives whole")
    func multipartUpload() async throws {
        let server = try await LoopbackServer.start(script: "scripted_server.py")
        defer { server.stop() }
        let control = ScriptedControl(baseURL: server.baseURL)
        try await control.script("/courier/multipart", method: "POST", [.json(200, #"{"form":{},"files":[]}"#)])
        let api = courierClient(server.baseURL)
        let client = generatedClient(server.baseURL, CourierTransport(client: api))
        let file = PatternChunks(count: 700_000, chunk: 16_384)

        let output = try await client.uploadFiles(body: .multipartForm([
            .description(.init(payload: .init(body: HTTPBody("monthly export")))),
            .file(.init(payload: .init(body: file.body), filename: "export.bin")),
        ]))

        _ = try output.ok.body.json
        let sent = try #require(try await control.requests(path: "/courier/multipart").first)
        let type = try #require(sent.header("Content-Type"))
        #expect(type.hasPrefix("multipart/form-data; boundary="))
        let text = String(decoding: sent.body, as: UTF8.self).lowercased()
        #expect(text.contains(#"content-disposition: form-data; name="description""#))
        #expect(text.contains("monthly export"))
        #expect(text.contains(#"content-disposition: form-data; filename="export.bin"; name="file""#))
        // Its length unknown, the body went chunked, read as the transport sent it.
        #expect(sent.header("Transfer-Encoding") == "chunked")
        #expect(sent.body.range(of: file.bytes) != nil)
        await api.shutdown()
    }

    @Test("a streamed download is handed out as it arrives: the first chunk is read before the server sends the second")
    func streamedDownload() async throws {
        let server = try await LoopbackServer.start(script: "scripted_server.py")
        defer { server.stop() }
        let control = ScriptedControl(baseURL: server.baseURL)
        var reply = ScriptedControl.Reply()
        reply.headers = ["Content-Type": "application/octet-stream"]
        reply.stream = .init(chunks: 3, chunkSize: 1000, gated: true)
        try await control.script("/stream-bytes/3000", [reply])
        let api = courierClient(server.baseURL)
        let client = generatedClient(server.baseURL, CourierTransport(client: api))

        let output = try await client.streamBytes(path: .init(count: 3000))
        let body = try output.ok.body.binary

        var iterator = body.makeAsyncIterator()
        var received = 0
        // Only the first chunk is on the wire until the test releases the next.
        while received < 1000 { received += try #require(try await iterator.next()).count }
        #expect(received == 1000)
        try await control.release(path: "/stream-bytes/3000")
        try await control.release(path: "/stream-bytes/3000")
        while let chunk = try await iterator.next() { received += chunk.count }
        #expect(received == 3000)
        await api.shutdown()
    }

    @Test("a failure without a response is the runtime's ClientError, whose underlying error is Courier's NetworkError")
    func transportErrors() async throws {
        // Port 1 of loopback: nothing listens there, the connection is refused.
        let base = URL(string: "http://127.0.0.1:1")!
        let api = courierClient(base)
        let client = generatedClient(base, CourierTransport(client: api))

        let error = await #expect(throws: ClientError.self) {
            _ = try await client.getUser(path: Operations.GetUser.Input.Path(userId: 1))
        }

        #expect(error?.operationID == "getUser")
        let underlying = try #require(error?.underlyingError as? NetworkError)
        #expect(underlying.category == NetworkError.Category.transport)
        await api.shutdown()
    }

    @Test("fifty concurrent generated calls that meet a 401 make one token refresh, then all succeed")
    func oneRefreshForConcurrentUnauthorized() async throws {
        let server = try await LoopbackServer.start(script: "scripted_server.py")
        defer { server.stop() }
        let control = ScriptedControl(baseURL: server.baseURL)
        try await control.script("/auth/refresh", [.json(200, #"{"accessToken":"new","expiresIn":3600}"#)])
        try await control.script("/users/5", [
            ScriptedControl.Reply.json(200, #"{"id":5,"name":"Eve"}"#)
                .when(header: "Authorization", is: "Bearer new", otherwise: .json(401, #"{"code":"expired","message":"token expired"}"#))
        ])
        let api = courierClient(server.baseURL) { $0.session = .init(persistence: InMemoryTokenPersistence()) }
        try await api.session.signIn(Tokens(accessToken: "old", refreshToken: "r1", expiresAt: nil))
        let client = generatedClient(server.baseURL, CourierTransport(client: api))

        let names = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 {
                group.addTask { try await client.getUser(path: .init(userId: 5)).ok.body.json.name }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }

        #expect(names == Array(repeating: "Eve", count: 50))
        #expect(try await control.requests(path: "/auth/refresh").count == 1)
        await api.shutdown()
    }

    @Test("a write of an operation that queues offline is stored while offline (202 naming the item) and replayed when the queue syncs; online it is sent at once")
    func offlineWriteReplayed() async throws {
        let server = try await LoopbackServer.start(script: "scripted_server.py")
        defer { server.stop() }
        let control = ScriptedControl(baseURL: server.baseURL)
        try await control.script("/users", method: "POST", [.json(201, #"{"id":3,"name":"Lin"}"#)])
        let api = courierClient(server.baseURL) {
            $0.connectivity = .init(debounce: .zero, watchesLink: false)
            $0.offline = .init()
        }
        var queued = OperationOptions()
        queued.queuesOffline = true
        let client = generatedClient(server.baseURL, CourierTransport(client: api, options: ["createUser": queued]))
        let changes = api.connectivity.events()
        try api.connectivity.report(.offline)
        for await change in changes where change.state == .offline { break }

        let output = try await client.createUser(body: .json(.init(name: "Lin")))

        guard case .accepted(let accepted) = output else {
            Issue.record("expected 202 Accepted, got \(output)")
            return
        }
        let item = try #require(accepted.headers.courierQueuedItem.flatMap { Int64($0) })
        #expect(try await api.offline.pendingCount == 1)
        #expect(try await control.requests(path: "/users").isEmpty)

        try api.connectivity.report(.online)
        for await change in changes where change.state == .online { break }
        _ = try await api.offline.sync()

        let sent = try await control.requests(path: "/users")
        #expect(sent.count == 1)
        let json = try sent.first.map { try JSONSerialization.jsonObject(with: $0.body) as? [String: String] }
        #expect(json == ["name": "Lin"])
        #expect(try await api.offline.items().contains { $0.id == item } == false)
        // Online, the same operation is sent at once and answers as the server did.
        #expect(try await client.createUser(body: .json(.init(name: "Lin"))).created.body.json.id == 3)
        #expect(try await control.requests(path: "/users").count == 2)
        await api.shutdown()
    }
}
