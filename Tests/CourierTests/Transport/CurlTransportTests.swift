#if canImport(CCurl)
import Foundation
import Testing
@testable import Courier

/// What ``CurlTransport`` does beyond the contract every transport keeps
/// (`HTTPTransportContractTests`), against the scripted server: bytes on the wire as the server
/// saw them, and responses as a user reads them.
@Suite struct CurlTransportTests {
    let transport = CurlTransport()

    @Test("repeated response fields arrive one field each, in order")
    func repeatedFieldsStayApart() async throws {
        let cookies = [["Set-Cookie", "a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT"], ["Set-Cookie", "b=2"], ["X-Other", "x"], ["set-cookie", "c=3"]]
        try await withScriptedServer { server in
            try await server.script("/cookies", [ScriptedResponse(status: 200, headerList: cookies)])
            let response = try await transport.send(HTTPRequest(url: URL(string: "\(server.baseURL)/cookies")!))
            #expect(response.headers.values(for: "Set-Cookie") == ["a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT", "b=2", "c=3"])
        }
    }

    @Test("the request goes out as built: method, fields in order, an empty value, no field libcurl would add")
    func requestBytesAsBuilt() async throws {
        try await withScriptedServer { server in
            try await server.script("/echo", [.echo])
            var request = HTTPRequest(method: .put, url: URL(string: "\(server.baseURL)/echo")!)
            request.headers = ["Accept": "text/plain", "X-Empty": "", "Accept": "application/json"]
            request.body = Data("päyload".utf8)
            _ = try await transport.send(request)
            let seen = try #require(try await server.requests(path: "/echo").first)
            #expect(seen.method == "PUT")
            #expect(seen.bodyText == "päyload")
            #expect(seen.header("Content-Length") == "\(Data("päyload".utf8).count)")
            #expect(seen.headers.filter { $0[0] == "Accept" }.map { $0[1] } == ["text/plain", "application/json"])
            #expect(seen.header("X-Empty") == "")
            #expect(seen.header("Content-Type") == nil)   // not libcurl's form type
            #expect(seen.header("Expect") == nil)
        }
    }

    @Test("POST, PUT and PATCH without a body send Content-Length 0; GET and DELETE send none")
    func emptyBodies() async throws {
        try await withScriptedServer { server in
            try await server.script("/echo", [.echo])
            for method in [HTTPMethod.post, .put, .patch, .get, .delete] {
                _ = try await transport.send(HTTPRequest(method: method, url: URL(string: "\(server.baseURL)/echo")!))
            }
            let seen = try await server.requests(path: "/echo")
            #expect(seen.map(\.method) == ["POST", "PUT", "PATCH", "GET", "DELETE"])
            #expect(seen.map { $0.header("Content-Length") } == ["0", "0", "0", nil, nil])
        }
    }

    @Test("HEAD: the head alone, and its Content-Length is not taken for a body over the limit")
    func head() async throws {
        try await withScriptedServer { server in
            try await server.script("/big", method: "HEAD", [.status(200, headers: ["Content-Length": "999999999", "ETag": "\"v1\""])])
            let response = try await transport.send(HTTPRequest(method: .head, url: URL(string: "\(server.baseURL)/big")!, maximumResponseSize: 1024))
            #expect(response.status == 200)
            #expect(response.headers["ETag"] == "\"v1\"")
            #expect(response.body.isEmpty)
        }
    }

    @Test("a body stream is read as it is sent: with a length, and chunked without one", arguments: [true, false])
    func bodyStream(knownLength: Bool) async throws {
        let payload = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        try await withScriptedServer { server in
            try await server.script("/upload", method: "POST", [.status(201)])
            var request = HTTPRequest(method: .post, url: URL(string: "\(server.baseURL)/upload")!)
            let memory = HTTPBodyStream.data(payload)
            request.bodyStream = knownLength ? memory : HTTPBodyStream(length: nil, makeReader: memory.makeReader)
            let response = try await transport.send(request)
            #expect(response.status == 201)
            let seen = try #require(try await server.requests(path: "/upload").first)
            #expect(seen.body == payload)
            #expect(seen.header("Transfer-Encoding") == (knownLength ? nil : "chunked"))
            #expect(seen.header("Content-Length") == (knownLength ? "\(payload.count)" : nil))
        }
    }

    @Test("a file is uploaded from disk, and a stream that lies about its length fails before the server takes it")
    func fileAndLyingStream() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("upload.bin")
        let payload = Data(repeating: 0x5A, count: 300_000)
        try payload.write(to: file)
        try await withScriptedServer { server in
            try await server.script("/upload", method: "POST", [.status(201)])
            var request = HTTPRequest(method: .post, url: URL(string: "\(server.baseURL)/upload")!)
            request.bodyStream = try .file(file)
            #expect(try await transport.send(request).status == 201)
            #expect(try await server.requests(path: "/upload").first?.body == payload)

            request.bodyStream = HTTPBodyStream(length: 10) {
                var sent = false
                return { _ in
                    defer { sent = true }
                    return sent ? Data() : Data("short".utf8)
                }
            }
            let error = await #expect(throws: NetworkError.self) { try await transport.send(request) }
            guard case .encodingError? = error else { Issue.record("got \(String(describing: error))"); return }
        }
    }

    @Test(
        "a body an async sequence produces, alone or a part among others, holds up no other exchange while its producer waits, and arrives whole",
        .timeLimit(.minutes(1)), arguments: [false, true])
    func producedBodyLeavesTheLoopFree(asAPart: Bool) async throws {
        try await withScriptedServer { server in
            try await server.script("/upload", method: "POST", [.status(201)])
            try await server.script("/ping", [.text(200, "pong")])
            let (asked, asking) = AsyncStream.makeStream(of: Int.self)
            let (releases, release) = AsyncStream.makeStream(of: Void.self)
            let body = GatedChunks(chunks: [Data("first ".utf8), Data("second".utf8)], asked: asking, releases: releases)
            var request = HTTPRequest(method: .post, url: URL(string: "\(server.baseURL)/upload")!)
            let produced = HTTPBodyStream.chunks(body, length: nil)
            request.bodyStream = asAPart ? .concatenating([.data(Data("<".utf8)), produced, .data(Data(">".utf8))]) : produced
            let upload = Task { try await transport.send(request) }
            // The producer gave its first chunk and waits to be let give the second.
            for await ask in asked where ask == 2 { break }
            let ping = try await transport.send(HTTPRequest(url: URL(string: "\(server.baseURL)/ping")!))
            #expect(String(decoding: ping.body, as: UTF8.self) == "pong")
            release.yield()
            #expect(try await upload.value.status == 201)
            let seen = try #require(try await server.requests(path: "/upload").first)
            #expect(seen.body == Data((asAPart ? "<first second>" : "first second").utf8))
            #expect(seen.header("Transfer-Encoding") == "chunked")
        }
    }

    @TaskLocal static var traceID: String?

    @Test("a produced body's sequence is iterated with the caller's task-locals")
    func producedBodySeesTaskLocals() async throws {
        try await withScriptedServer { server in
            try await server.script("/upload", method: "POST", [.status(201), .status(201)])
            // A body of one chunk: the task-local value where its sequence is iterated.
            func upload() -> HTTPRequest {
                let given = Locked(false)
                var request = HTTPRequest(method: .post, url: URL(string: "\(server.baseURL)/upload")!)
                request.bodyStream = .chunks(AsyncStream<Data> {
                    given.withLock { given in defer { given = true }; return given } ? nil : Data((Self.traceID ?? "none").utf8)
                }, length: nil)
                return request
            }
            let status = try await Self.$traceID.withValue("trace-7") { try await transport.send(upload()).status }
            #expect(status == 201)
            #expect(try await transport.send(upload()).status == 201)
            let bodies = try await server.requests(path: "/upload").map { String(decoding: $0.body, as: UTF8.self) }
            #expect(bodies == ["trace-7", "none"])
        }
    }

    @Test("a produced body that fails ends its exchange with encodingError, and the transport serves the next")
    func producedBodyFailure() async throws {
        try await withScriptedServer { server in
            try await server.script("/upload", method: "POST", [.status(201)])
            try await server.script("/ping", [.text(200, "pong")])
            let (_, asking) = AsyncStream.makeStream(of: Int.self)
            let (releases, _) = AsyncStream.makeStream(of: Void.self)
            let body = GatedChunks(
                chunks: [Data("partial".utf8)], failure: .invalidRequest("the recorder stopped"), asked: asking, releases: releases)
            var request = HTTPRequest(method: .post, url: URL(string: "\(server.baseURL)/upload")!)
            request.bodyStream = .chunks(body, length: 100)
            let error = await #expect(throws: NetworkError.self) { try await transport.send(request) }
            guard case .encodingError(let underlying)? = error else { Issue.record("got \(String(describing: error))"); return }
            guard case .invalidRequest("the recorder stopped")? = underlying as? NetworkError else {
                Issue.record("underlying \(String(describing: underlying))")
                return
            }
            let ping = try await transport.send(HTTPRequest(url: URL(string: "\(server.baseURL)/ping")!))
            #expect(ping.status == 200)
        }
    }

    @Test("a compressed response is decoded and loses its encoding fields; a caller's own Accept-Encoding gets the bytes as sent")
    func decompression() async throws {
        let text = String(repeating: "courier ", count: 1000)
        let gzipped = try gzip(Data(text.utf8))
        try await withScriptedServer { server in
            try await server.script("/text", [.data(200, gzipped, headers: ["Content-Encoding": "gzip", "Content-Type": "text/plain"])])
            let decoded = try await transport.send(HTTPRequest(url: URL(string: "\(server.baseURL)/text")!))
            #expect(String(decoding: decoded.body, as: UTF8.self) == text)
            #expect(decoded.headers["Content-Encoding"] == nil)
            #expect(decoded.headers["Content-Length"] == nil)
            #expect(decoded.headers["Content-Type"] == "text/plain")
            let offered = try await server.requests(path: "/text").first?.header("Accept-Encoding") ?? ""
            #expect(offered.contains("gzip") && offered.contains("br") && offered.contains("zstd"))

            let raw = try await transport.send(HTTPRequest(url: URL(string: "\(server.baseURL)/text")!, headers: ["Accept-Encoding": "gzip"]))
            #expect(raw.body == gzipped)
            #expect(raw.headers["Content-Encoding"] == "gzip")
        }
    }

    @Test("a gzip bomb stops at the limit of its decoded size")
    func gzipBomb() async throws {
        let bomb = try gzip(Data(count: 64 * 1024 * 1024))   // 64 MiB of zeros, about 64 KiB compressed
        #expect(bomb.count < 256 * 1024)
        try await withScriptedServer { server in
            try await server.script("/bomb", [.data(200, bomb, headers: ["Content-Encoding": "gzip"])])
            let error = await #expect(throws: NetworkError.self) {
                try await transport.send(HTTPRequest(url: URL(string: "\(server.baseURL)/bomb")!, maximumResponseSize: 1024 * 1024))
            }
            guard case .responseTooLarge(let limit)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(limit == 1024 * 1024)
        }
    }

    @Test("a Content-Length over the limit is refused before the body, and a chunked body over it while it arrives")
    func sizeLimits() async throws {
        try await withScriptedServer { server in
            try await server.script("/declared", [.sized(2 * 1024 * 1024)])
            try await server.script("/chunked", [.chunked(2 * 1024 * 1024)])
            for path in ["/declared", "/chunked"] {
                let error = await #expect(throws: NetworkError.self) {
                    try await transport.send(HTTPRequest(url: URL(string: "\(server.baseURL)\(path)")!, maximumResponseSize: 100_000))
                }
                guard case .responseTooLarge(100_000)? = error else { Issue.record("\(path): got \(String(describing: error))"); continue }
            }
        }
    }

    @Test("a millisecond timeout fires at its milliseconds, not rounded to a second")
    func millisecondTimeout() async throws {
        try await withScriptedServer { server in
            try await server.script("/slow", [.delayed(30, body: "late")])
            let started = ContinuousClock.now
            let error = await #expect(throws: NetworkError.self) {
                try await transport.send(HTTPRequest(url: URL(string: "\(server.baseURL)/slow")!, timeout: .milliseconds(150)))
            }
            let elapsed = ContinuousClock.now - started
            guard case .timeout(.attempt, let cause)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect((cause as? CurlError)?.code == 28)
            // Not before the timeout; the server answers only at 30 s, so the timeout error is the
            // timer's (an upper bound would measure the machine's load, not the timer).
            #expect(elapsed >= .milliseconds(150))
        }
    }

    @Test("cancelling the caller answers cancelled at once and the server sees the connection go")
    func cancellation() async throws {
        try await withScriptedServer { server in
            try await server.script("/hold", [.hold])
            let transport = self.transport
            let call = Task { try await transport.send(HTTPRequest(url: URL(string: "\(server.baseURL)/hold")!)) }
            _ = try await server.waitForRequests(path: "/hold", count: 1)
            call.cancel()
            let error = await #expect(throws: NetworkError.self) { try await call.value }
            guard case .cancelled? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(try await server.waitForDisconnect(path: "/hold"))
            // The transport goes on serving.
            try await server.script("/after", [.text(200, "ok")])
            #expect(try await transport.send(HTTPRequest(url: URL(string: "\(server.baseURL)/after")!)).status == 200)
        }
    }

    @Test("requests go through the configured proxy, in absolute form")
    func proxy() async throws {
        try await withScriptedServer { server in
            var configuration = CurlTransport.Configuration()
            configuration.proxy = .url(server.baseURL)
            let proxied = CurlTransport(configuration: configuration)
            _ = try? await proxied.send(HTTPRequest(url: URL(string: "http://courier.invalid/through?x=1")!, timeout: .seconds(10)))
            let seen = try await server.requests()
            #expect(seen.map(\.path) == ["http://courier.invalid/through?x=1"])
            #expect(seen.first?.header("Host") == "courier.invalid")
        }
    }

    @Test("a refused connection is cannotConnect to the server's host and port, libcurl's code and errno kept")
    func refused() async throws {
        let server = try await ScriptedServer.start()
        let url = URL(string: "\(server.baseURL)/gone")!
        server.stopAndWait()
        let error = await #expect(throws: NetworkError.self) { try await transport.send(HTTPRequest(url: url)) }
        guard case .cannotConnect(let host, let port, .refused, let cause)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(host == url.host)
        #expect(port == url.port)
        #expect((cause as? CurlError)?.code == 7)
        #expect((cause as? CurlError)?.systemErrorNumber == Int(ECONNREFUSED))
        #expect(error.map { "\($0)" }?.contains("curl error 7") == true)
    }

    @Test("every libcurl failure maps to the error a caller acts on")
    func curlCodes() {
        let url = URL(string: "https://api.example.com/v1/x")!
        func mapped(_ code: Int, errno: Int = 0) -> NetworkError {
            NetworkError(curl: CurlError(code: code, message: "m", systemErrorNumber: errno), url: url)
        }
        let connects: [(Int, Int, NetworkError.ConnectFailure)] = [
            (5, 0, .proxy), (97, 0, .proxy), (6, 0, .hostNotFound), (7, Int(ECONNREFUSED), .refused), (7, Int(ENETUNREACH), .unreachable),
            (7, Int(EHOSTUNREACH), .unreachable), (7, 0, .unreachable), (35, 0, .tlsHandshake),
        ]
        for (code, errno, expected) in connects {
            guard case .cannotConnect(let host, let port, let reason, let cause) = mapped(code, errno: errno) else {
                Issue.record("\(code) should be cannotConnect"); continue
            }
            #expect(host == "api.example.com" && port == 443 && reason == expected, "\(code), errno \(errno)")
            #expect((cause as? CurlError)?.code == code)
        }
        for code in [55, 56] {
            guard case .connectionLost("api.example.com", 443, let cause) = mapped(code) else { Issue.record("\(code) should be connectionLost"); continue }
            #expect((cause as? CurlError)?.code == code)
        }
        guard case .timeout(.attempt, _) = mapped(28) else { Issue.record("28 should be timeout"); return }
        for code in [51, 58, 59, 60, 77, 80, 82, 83, 90, 91, 98] {
            guard case .securityError(let reason) = mapped(code) else { Issue.record("\(code) should be securityError"); continue }
            #expect(reason.contains("curl error \(code)"))
        }
        for code in [1, 8, 16, 18, 52, 61, 92] {
            let error = mapped(code)
            guard case .malformedResponse(_, let cause) = error else { Issue.record("\(code) should be malformedResponse"); continue }
            #expect((cause as? CurlError)?.code == code)
            #expect(error.isRetryable)
        }
        guard case .invalidURL = mapped(3) else { Issue.record("3 should be invalidURL"); return }
        guard case .unknown(let cause) = mapped(27) else { Issue.record("27 should be unknown"); return }
        #expect((cause as? CurlError)?.code == 27)
    }

    @Test("a malformed response tells the connectivity monitor nothing and is retried for an idempotent request")
    func malformedIsRetryableAndNeutral() {
        let request = HTTPRequest(url: URL(string: "https://api.example.com/x")!)
        let decision = RetryPolicy.default.decide(
            attempt: 1, request: request, outcome: .failure(.malformedResponse("cut short", underlying: nil)), now: Date(), randomUnit: 0.5)
        guard case .retry(_, let reason) = decision else { Issue.record("got \(decision)"); return }
        #expect(reason == "malformed response")
        var post = request
        post.method = .post
        #expect(RetryPolicy.default.decide(
            attempt: 1, request: post, outcome: .failure(.malformedResponse("cut short", underlying: nil)), now: Date(), randomUnit: 0.5) == .stop)
    }
}

/// `data` gzip-compressed, by Python's standard library (the tests need python3 anyway).
func gzip(_ data: Data) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [try TestTool.python3(), "-c", "import gzip, sys; sys.stdout.buffer.write(gzip.compress(sys.stdin.buffer.read()))"]
    let input = Pipe(), output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    let writer = Thread {
        input.fileHandleForWriting.write(data)
        try? input.fileHandleForWriting.close()
    }
    writer.start()
    let compressed = output.fileHandleForReading.readToEndOfFile()
    process.waitUntilExit()
    return compressed
}
#endif
