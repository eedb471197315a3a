import CourierTesting
import Foundation
import Testing

@testable import Courier

/// A body is sent again (a retry, a 307/308, a 401's renewal) only when its source can be read
/// from the start again; a stream read once is sent at most once. Against the scripted server.
@Suite(.serialized, .timeLimit(.minutes(2))) struct BodyReplayTests {
    private static let payload = patternBytes(from: 0, count: 300_000)

    /// A stream over `payload` that can be read only once.
    private static func once() -> HTTPBodyStream {
        var offset = 0
        return HTTPBodyStream(length: payload.count, readingOnce: { maxLength in
            let end = min(offset + maxLength, payload.count)
            defer { offset = end }
            return payload[offset..<end]
        })
    }

    @Test("a second reader of a stream read once throws; concatenations of reopenable streams reopen")
    func readingOnce() throws {
        let stream = Self.once()
        #expect(!stream.isReopenable)
        _ = try stream.makeReader()
        #expect(throws: HTTPBodyStream.AlreadyRead.self) { _ = try stream.makeReader() }
        #expect(HTTPBodyStream.data(Data([1])).isReopenable)
        #expect(HTTPBodyStream.concatenating([.data(Data([1])), .data(Data([2]))]).isReopenable)
        #expect(!HTTPBodyStream.concatenating([.data(Data([1])), Self.once()]).isReopenable)
    }

    @Test("a 503 to a stream read once is not retried; the same body from a file is, whole")
    func retries() async throws {
        try await withScriptedServer { server in
            try await server.script("/once", method: "PUT", [.status(503), .status(204)])
            try await server.script("/file", method: "PUT", [.status(503), .status(204)])
            let api = client(server.baseURL)
            await #expect(throws: NetworkError.self) {
                try await api.send(Endpoint<EmptyResponse>(path: "once", method: .put, body: .stream(Self.once())))
            }
            #expect(try await server.requests(path: "/once").count == 1)

            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-replay-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("body.bin")
            try Self.payload.write(to: file)
            _ = try await api.send(Endpoint<EmptyResponse>(path: "file", method: .put, body: .file(file)))
            let sent = try await server.requests(path: "/file")
            #expect(sent.map(\.body) == [Self.payload, Self.payload])
            await api.shutdown()
        }
    }

    @Test("a 307 replays a reopenable stream to its target; for a stream read once it is a clear error, sent once")
    func temporaryRedirects() async throws {
        try await withScriptedServer { server in
            try await server.script("/from", method: "POST", [.redirect(307, to: "/to"), .redirect(307, to: "/to")])
            try await server.script("/to", method: "POST", [.status(204)])
            let api = client(server.baseURL)
            _ = try await api.send(Endpoint<EmptyResponse>(path: "from", method: .post, body: .stream(.data(Self.payload))))
            #expect(try await server.requests(path: "/to").map(\.body) == [Self.payload])
            do {
                _ = try await api.send(Endpoint<EmptyResponse>(path: "from", method: .post, body: .stream(Self.once())))
                Issue.record("a stream read once was sent again")
            } catch {
                guard case .invalidRequest(let reason)? = error as? NetworkError else { Issue.record("got \(error)"); return }
                #expect(reason.contains("307") && reason.contains("only once"))
            }
            #expect(try await server.requests(path: "/from").count == 2)
            #expect(try await server.requests(path: "/to").count == 1)
            await api.shutdown()
        }
    }

    @Test("a 303 after a streamed POST is followed with a GET and no body")
    func seeOtherDropsTheStream() async throws {
        try await withScriptedServer { server in
            try await server.script("/form", method: "POST", [.redirect(303, to: "/done")])
            try await server.script("/done", [.text(200, "ok")])
            let api = client(server.baseURL)
            let response = try await api.send(Endpoint<String>(path: "form", method: .post, body: .stream(Self.once())))
            #expect(response.value == "ok")
            let done = try #require(try await server.requests(path: "/done").first)
            #expect(done.method == "GET")
            #expect(done.bodyLength == 0)
            #expect(done.header("Content-Length") == nil && done.header("Transfer-Encoding") == nil)
            await api.shutdown()
        }
    }

    @Test("a 401 to a stream read once is final: no refresh replays it")
    func unauthorizedIsFinal() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/upload", method: "PUT", [.status(401), .status(204)])
            let api = client(server.baseURL, retryPolicy: .never) { $0.session = .init(persistence: InMemoryTokenPersistence()) }
            try await api.session.signIn(Tokens(accessToken: "t1", refreshToken: "r1", expiresAt: nil))
            await #expect(throws: NetworkError.self) {
                try await api.send(Endpoint<EmptyResponse>(path: "upload", method: .put, body: .stream(Self.once()), version: .v1))
            }
            #expect(try await server.requests(path: "/v1/upload").count == 1)
            #expect(try await server.requests(path: "/v1/auth/refresh").isEmpty)
            await api.shutdown()
        }
    }
}
