import Courier
import CourierOpenAPI
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// How ``CourierTransport`` ends a call that cannot finish, or waits for one: the caller's
/// cancellation, a request body that fails or waits while it is sent. Against the scripted server.
@Suite(.timeLimit(.minutes(5))) struct CourierTransportFailureTests {
    @Test("cancelling the caller's task ends a generated call waiting for its answer, and the connection is closed")
    func cancellation() async throws {
        let server = try await LoopbackServer.start(script: "scripted_server.py")
        defer { server.stop() }
        let control = ScriptedControl(baseURL: server.baseURL)
        try await control.script("/users/9", [ScriptedControl.Reply(hold: true)])
        let api = courierClient(server.baseURL)
        let client = generatedClient(server.baseURL, CourierTransport(client: api))

        let call = Task { try await client.getUser(path: .init(userId: 9)) }
        try await control.waitForRequests(path: "/users/9", count: 1)
        call.cancel()

        let result = await call.result
        guard case .failure(let error) = result else {
            Issue.record("the call answered: \(result)")
            return
        }
        let underlying = (error as? ClientError)?.underlyingError as? NetworkError
        #expect(underlying?.category == NetworkError.Category.cancelled)
        #expect(try await control.waitForDisconnect(path: "/users/9"))
        await api.shutdown()
    }

    @Test("a request body that fails while it is sent ends the call with Courier's encodingError carrying the body's error")
    func failingRequestBody() async throws {
        struct Broken: Error {}
        let server = try await LoopbackServer.start(script: "scripted_server.py")
        defer { server.stop() }
        let control = ScriptedControl(baseURL: server.baseURL)
        try await control.script("/users", method: "POST", [.json(201, #"{"id":1,"name":"A"}"#)])
        let api = courierClient(server.baseURL)
        let transport = CourierTransport(client: api)
        let (stream, continuation) = AsyncThrowingStream<ArraySlice<UInt8>, any Error>.makeStream()
        continuation.yield(ArraySlice(#"{"name":"#.utf8))
        continuation.finish(throwing: Broken())
        var request = HTTPTypes.HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/users")
        request.headerFields[.contentType] = "application/json"

        let error = await #expect(throws: NetworkError.self) {
            _ = try await transport.send(request, body: HTTPBody(stream, length: .unknown), baseURL: server.baseURL, operationID: "createUser")
        }

        guard case .encodingError(let cause) = error else {
            Issue.record("expected encodingError, got \(String(describing: error))")
            return
        }
        #expect(cause is Broken)
        await api.shutdown()
    }

    @Test("a request body whose producer waits holds up no other call through the same client, and arrives whole")
    func waitingRequestBody() async throws {
        let server = try await LoopbackServer.start(script: "scripted_server.py")
        defer { server.stop() }
        let control = ScriptedControl(baseURL: server.baseURL)
        try await control.script("/users", method: "POST", [.json(201, #"{"id":1,"name":"A"}"#)])
        try await control.script("/users/9", [.json(200, #"{"id":9,"name":"Nine"}"#)])
        let api = courierClient(server.baseURL)
        let transport = CourierTransport(client: api)
        let (asked, asking) = AsyncStream.makeStream(of: Int.self)
        let (releases, release) = AsyncStream.makeStream(of: Void.self)
        let body = WaitingBody(first: ArraySlice(#"{"name":"#.utf8), second: ArraySlice(#""A"}"#.utf8), asked: asking, releases: releases)
        var request = HTTPTypes.HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/users")
        request.headerFields[.contentType] = "application/json"
        let create = Task {
            try await transport.send(request, body: HTTPBody(body, length: .unknown, iterationBehavior: .single), baseURL: server.baseURL, operationID: "createUser")
        }
        // The body's first bytes are given; its producer waits to be let give the rest.
        for await ask in asked where ask == 2 { break }

        let user = try await generatedClient(server.baseURL, transport).getUser(path: .init(userId: 9), query: .init())
        #expect(try user.ok.body.json.name == "Nine")
        release.yield()
        #expect(try await create.value.0.status.code == 201)
        let received = try await control.requests(path: "/users")
        #expect(received.map { String(decoding: $0.body, as: UTF8.self) } == [#"{"name":"A"}"#])
        await api.shutdown()
    }
}

/// A request body of two parts whose second is given only once a value arrives on `releases`;
/// each ask for a part (1, 2, 3 for the end) goes to `asked`.
private struct WaitingBody: AsyncSequence, Sendable {
    let first: ArraySlice<UInt8>
    let second: ArraySlice<UInt8>
    let asked: AsyncStream<Int>.Continuation
    let releases: AsyncStream<Void>

    struct AsyncIterator: AsyncIteratorProtocol {
        let body: WaitingBody
        var index = 0
        var gate: AsyncStream<Void>.Iterator

        mutating func next() async -> ArraySlice<UInt8>? {
            index += 1
            body.asked.yield(index)
            switch index {
            case 1: return body.first
            case 2:
                _ = await gate.next()
                return body.second
            default: return nil
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(body: self, gate: releases.makeAsyncIterator()) }
}
