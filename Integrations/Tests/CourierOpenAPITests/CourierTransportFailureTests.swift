import Courier
import CourierOpenAPI
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// How ``CourierTransport`` ends a call that cannot finish: the caller's cancellation, a request
/// body that fails while it is sent. Against the scripted server.
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
}
