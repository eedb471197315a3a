import CourierTesting
import Foundation
import Testing

@testable import Courier

/// `client.bytes(for:)` and `client.download(_:to:maxBytes:)` through the whole chain, against
/// the scripted server.
@Suite(.serialized, .timeLimit(.minutes(5))) struct APIClientStreamingTests {
    @Test("a streamed call passes interceptors, auth and logging; the logger never gets the body")
    func chainApplies() async throws {
        try await withScriptedServer { server in
            try await server.script("/v1/feed", [.streamed(StreamSpec(chunks: 2, chunkSize: 5000, gated: true))])
            let logger = CapturingLogger()
            let api = sessionClient(server, logger: logger)
            try await api.session.signIn(Tokens(accessToken: "t1", refreshToken: "r1", expiresAt: nil))
            let (response, bytes) = try await api.bytes(for: Endpoint<Data>(path: "feed", version: .v1))
            #expect(response.status == 200)
            #expect(response.metrics != nil)
            let sent = try await server.requests(path: "/v1/feed")
            #expect(sent.first?.header("Authorization") == "Bearer t1")
            var iterator = bytes.makeAsyncIterator()
            var received = 0
            while received < 5000 { received += try #require(try await iterator.next()).count }
            try await server.release(path: "/v1/feed")
            while let chunk = try await iterator.next() { received += chunk.count }
            #expect(received == 10_000)
            let logged = logger.lines.flatMap { $0.metadata.values }
            #expect(!logged.contains { $0.contains("xxxx") })
            #expect(!logger.lines(("response")).isEmpty)
        }
    }

    @Test("a 401 before the body: one refresh, then the retry streams")
    func unauthorizedRefreshes() async throws {
        try await withScriptedServer { server in
            try await server.script("/auth/refresh", [refreshAnswer(access: "new")])
            try await server.script("/v1/feed", [
                ScriptedResponse.streamed(StreamSpec(chunks: 3, chunkSize: 1000))
                    .when(header: "Authorization", is: "Bearer new", otherwise: .json(401, #"{"error":"expired"}"#))
            ])
            let api = sessionClient(server)
            try await api.session.signIn(Tokens(accessToken: "old", refreshToken: "r1", expiresAt: nil))
            let (response, bytes) = try await api.bytes(for: Endpoint<Data>(path: "feed", version: .v1))
            #expect(response.status == 200)
            #expect(response.metrics?.attempts == 2)
            #expect(try await bytes.collect(upTo: 1 << 20).count == 3000)
            #expect(try await server.requests(path: "/auth/refresh").count == 1)
            #expect(try await server.requests(path: "/v1/feed").map { $0.header("Authorization") } == ["Bearer old", "Bearer new"])
        }
    }

    @Test("statuses other than 2xx throw as for send, with the error body")
    func errorStatusThrows() async throws {
        try await withScriptedServer { server in
            try await server.script("/missing", [.json(404, #"{"message":"no such export"}"#)])
            let api = client(server.baseURL)
            do {
                _ = try await api.bytes(for: Endpoint<Data>(path: "missing"))
                Issue.record("a 404 did not throw")
            } catch {
                guard case .notFound(let response)? = error as? NetworkError else { Issue.record("got \(error)"); return }
                #expect(String(decoding: response.body, as: UTF8.self).contains("no such export"))
            }
        }
    }

    @Test("an error's body larger than the stream's maxBytes is read within the client's limit: the status's error, not responseTooLarge")
    func errorBodyOverTheStreamLimit() async throws {
        try await withScriptedServer { server in
            let page = String(repeating: "x", count: 2_000)
            let chunked = EventStreamSpec(pieces: [String(repeating: "y", count: 600), String(repeating: "y", count: 600)])
            try await server.script("/busy", [.text(503, page), .events(chunked)])
            try await server.script("/sized", [.streamed(StreamSpec(chunks: 1, chunkSize: 1_500))])
            // Declared over the client's limit too: refused at its head, the caller's limit named.
            try await server.script("/huge", [.streamed(StreamSpec(chunks: 1, chunkSize: 10, declared: HTTPRequest.defaultMaximumResponseSize + 1))])
            let api = client(server.baseURL, retryPolicy: .never)
            do {
                _ = try await api.bytes(for: Endpoint<Data>(path: "busy"), maxBytes: 1_000)
                Issue.record("a 503 did not throw")
            } catch {
                guard case .serverError(let response)? = error as? NetworkError else { Issue.record("got \(error)"); return }
                #expect(response.status == 503)
                #expect(String(decoding: response.body, as: UTF8.self) == page)
            }
            // A 2xx is still held to maxBytes: declared over it (or over both limits), or sent
            // over it (chunked).
            for path in ["sized", "busy", "huge"] {
                do {
                    let (_, bytes) = try await api.bytes(for: Endpoint<Data>(path: path), maxBytes: 1_000)
                    _ = try await bytes.collect(upTo: 10_000)
                    Issue.record("\(path): a body over maxBytes was read")
                } catch {
                    guard case .responseTooLarge(1_000)? = error as? NetworkError else { Issue.record("\(path): got \(error)"); return }
                }
            }
            await api.shutdown()
        }
    }

    @Test("a redirect is followed on its head; a stream is never cached")
    func redirectAndNoCache() async throws {
        try await withScriptedServer { server in
            try await server.script("/old", [.redirect(302, to: "/new")])
            try await server.script("/new", [.text(200, "fresh", headers: ["Cache-Control": "max-age=600"])])
            let api = client(server.baseURL) { $0.caching = .init() }
            for _ in 0..<2 {
                let (response, bytes) = try await api.bytes(for: Endpoint<Data>(path: "old"))
                #expect(response.metrics?.redirects == 1)
                #expect(String(decoding: try await bytes.collect(upTo: 100), as: UTF8.self) == "fresh")
            }
            #expect(try await server.requests(path: "/new").count == 2)
        }
    }

    @Test("a 256 MiB download (32 MiB under TSan) lands whole, with the client's buffer bounded and no temporary file left")
    func largeDownload() async throws {
        try await withScriptedServer { server in
            let megabytes = isThreadSanitized ? 32 : 256
            let size = megabytes << 20
            try await server.script("/big", [.streamed(StreamSpec(chunks: megabytes, chunkSize: 1 << 20, pattern: true))])
            let api = client(server.baseURL)
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let destination = directory.appendingPathComponent("big.bin")
            let observed = Locked<ResponseBytes?>(nil)
            let response = try await api.download(
                Endpoint<Data>(path: "big"), to: destination, maxBytes: size, stallTimeout: .seconds(60),
                observing: { bytes in observed.withLock { $0 = bytes } })
            #expect(response.status == 200)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["big.bin"])
            let peak = try #require(observed.withLock { $0 }).maxBufferedBytes
            #expect(peak < ResponseBodyBuffer.highWater + (16 << 10))
            // The content, read back in pieces: byte i is i % 256.
            let file = try FileHandle(forReadingFrom: destination)
            defer { try? file.close() }
            var offset = 0
            let expected = patternBytes(from: 0, count: 4 << 20)   // every 4 MiB piece starts at a multiple of 256
            while let piece = try file.read(upToCount: 4 << 20), !piece.isEmpty {
                #expect(piece == expected.prefix(piece.count), "the piece at \(offset) differs")
                if piece != expected.prefix(piece.count) { return }
                offset += piece.count
            }
            #expect(offset == size)
        }
    }

    @Test("a download that fails leaves no file: neither the temporary one nor the destination")
    func failedDownloadLeavesNothing() async throws {
        try await withScriptedServer { server in
            try await server.script("/big", [.streamed(StreamSpec(chunks: 4, chunkSize: 100_000))])
            let api = client(server.baseURL)
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let destination = directory.appendingPathComponent("out.bin")
            do {
                try await api.download(Endpoint<Data>(path: "big"), to: destination, maxBytes: 250_000)
                Issue.record("a body over maxBytes was downloaded")
            } catch {
                guard case .responseTooLarge(250_000)? = error as? NetworkError else { Issue.record("got \(error)"); return }
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }
    }

    @Test("a truncated download throws malformedResponse and leaves no file")
    func truncatedDownload() async throws {
        try await withHostileServer { server in
            let api = client(server.baseURL)
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            do {
                try await api.download(Endpoint<Data>(path: "truncated-body"), to: directory.appendingPathComponent("t"), maxBytes: 1000)
                Issue.record("a truncated body was downloaded")
            } catch {
                guard case .malformedResponse? = error as? NetworkError else { Issue.record("got \(error)"); return }
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }
    }

    private func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-download-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    private func sessionClient(_ server: ScriptedServer, logger: CapturingLogger? = nil) -> APIClient {
        client(server.baseURL, retryPolicy: .never) {
            $0.session = .init(persistence: InMemoryTokenPersistence())
            if let logger { $0.logging = .init(logger: logger, detail: .verbose) }
        }
    }
}
