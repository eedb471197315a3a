import CourierTesting
import Foundation
import Testing

@testable import Courier

/// Request bodies as the client builds them (`APIClient.makeRequest`), and as real servers
/// receive them: the scripted server (the bytes as they arrived) and httpbin (its form and
/// multipart parser, Werkzeug's).
@Suite(.timeLimit(.minutes(5))) struct RequestBodyTests {
    private static let offline = URL(string: "https://api.test")!

    /// The request `endpoint` becomes, built by a client that sends nothing.
    private func built<Value>(_ endpoint: Endpoint<Value>) throws(NetworkError) -> HTTPRequest {
        try client(Self.offline, transport: InMemoryTransport(always: HTTPResponse(status: 204))).makeRequest(endpoint.untyped)
    }

    /// httpbin's JSON answer as a dictionary.
    private func json(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The SHA-256 of the file at `url`, in lower-case hex (coreutils' `sha256sum`).
    private func sha256(ofFileAt url: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sha256sum", url.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return String(text.prefix(while: { !$0.isWhitespace }))
    }

    /// A temporary file of `megabytes` MiB, each MiB starting with its index, written a MiB at a time.
    private func largeFile(megabytes: Int, named name: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-upload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        let file = try FileHandle(forWritingTo: url)
        defer { try? file.close() }
        var block = Data((0..<1024 * 1024).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) })
        for index in 0..<megabytes {
            block.replaceSubrange(0..<8, with: withUnsafeBytes(of: UInt64(index).bigEndian) { Data($0) })
            try file.write(contentsOf: block)
        }
        return url
    }

    // MARK: Building

    @Test("each body's Content-Type, bytes in memory or a stream")
    func eachBodysContentType() throws {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF])
        let json = try built(Endpoint<EmptyResponse>(path: "a", method: .post, body: ["name": "Ada"]))
        #expect(json.headers["Content-Type"] == "application/json")
        #expect(json.body == Data(#"{"name":"Ada"}"#.utf8))

        let raw = try built(Endpoint<EmptyResponse>(path: "a", method: .post, body: png))   // a Data given as Encodable
        #expect(raw.headers["Content-Type"] == "application/octet-stream")
        #expect(raw.body == png)
        let typed = try built(Endpoint<EmptyResponse>(path: "a", method: .put, body: .data(png, contentType: "image/png")))
        #expect(typed.headers["Content-Type"] == "image/png")
        #expect(typed.body == png)

        let text = try built(Endpoint<EmptyResponse>(path: "a", method: .post, body: .text("héllo")))
        #expect(text.headers["Content-Type"] == "text/plain; charset=utf-8")
        #expect(text.body == Data("héllo".utf8))

        let form = try built(Endpoint<EmptyResponse>(path: "a", method: .post, body: .form(["q": "a b", "é": "&"])))
        #expect(form.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(form.body == Data("q=a+b&%C3%A9=%26".utf8))

        var small = MultipartForm(boundary: "b0")
        small.append(name: "k", value: "v")
        let multipart = try built(Endpoint<EmptyResponse>(path: "a", method: .post, body: .multipart(small)))
        #expect(multipart.headers["Content-Type"] == "multipart/form-data; boundary=b0")
        #expect(multipart.body == (try small.encodedData()))
        #expect(multipart.bodyStream == nil)
        #expect(multipart.headers["Accept"] == "application/json")
    }

    @Test("files stream: no body in memory, the file's size as the length, its type guessed unless given")
    func filesStream() throws {
        let url = try MultipartFormTests.temporaryFile(size: 3000, named: "rows.csv")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let file = try built(Endpoint<EmptyResponse>(path: "a", method: .put, body: .file(url)))
        #expect(file.body == nil)
        #expect(file.bodyStream?.length == 3000)
        #expect(file.headers["Content-Type"] == "text/csv")
        #expect(try built(Endpoint<EmptyResponse>(path: "a", method: .put, body: .file(url, contentType: "text/plain"))).headers["Content-Type"] == "text/plain")

        var form = MultipartForm(boundary: "b1")
        form.append(name: "rows", fileAt: url)
        let multipart = try built(Endpoint<EmptyResponse>(path: "a", method: .post, body: .multipart(form)))
        #expect(multipart.body == nil)
        var framing = MultipartForm(boundary: "b1")   // the same form with an empty file
        framing.append(name: "rows", data: Data(), filename: "rows.csv", contentType: "text/csv")
        #expect(multipart.bodyStream?.length == 3000 + (try framing.encodedData().count))

        let missing = URL(fileURLWithPath: "/nonexistent/courier/missing.bin")
        #expect { try built(Endpoint<EmptyResponse>(path: "a", method: .put, body: .file(missing))) } throws: { error in
            guard case .invalidRequest(let message) = error as? NetworkError else { return false }
            return message.contains("missing.bin")
        }
    }

    @Test("a Content-Type the endpoint sets is kept, never a second one added")
    func theCallersContentTypeIsKept() throws {
        for body: RequestBody in [.json(["a": 1]), .form(["a": "1"]), .text("a"), .multipart(MultipartForm())] {
            let request = try built(Endpoint<EmptyResponse>(
                path: "a", method: .post, headers: ["content-type": "application/vnd.courier+json"], body: body))
            #expect(request.headers.values(for: "Content-Type") == ["application/vnd.courier+json"])
        }
        #expect(try built(Endpoint<EmptyResponse>(path: "a")).headers["Content-Type"] == nil)
    }

    // MARK: What servers receive

    @Test("a Data body arrives as its raw bytes under the caller's Content-Type; text as UTF-8")
    func aDataBodyArrivesRaw() async throws {
        try await withScriptedServer { server in
            try await server.script("/avatar", [.status(204)])
            let api = client(server.baseURL, retryPolicy: .never)
            let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0xFF, 0x22])
            _ = try await api.send(Endpoint<EmptyResponse>(path: "avatar", method: .put, headers: ["Content-Type": "image/png"], body: png))
            _ = try await api.send(Endpoint<EmptyResponse>(path: "avatar", method: .put, body: .text("naïve ✓", contentType: "text/markdown; charset=utf-8")))
            let received = try await server.requests(path: "/avatar")
            #expect(received.count == 2)
            #expect(received.first?.body == png)
            #expect(received.first?.header("Content-Type") == "image/png")
            #expect(received.first?.headers.filter { $0.first?.lowercased() == "content-type" }.count == 1)
            #expect(received.last?.bodyText == "naïve ✓")
            #expect(received.last?.header("Content-Type") == "text/markdown; charset=utf-8")
            await api.shutdown()
        }
    }

    @Test("a form with reserved and non-ASCII characters reaches httpbin's form parser as sent")
    func aFormReachesHTTPBin() async throws {
        try await withHTTPBin { httpbin in
            let api = client(httpbin.baseURL, retryPolicy: .never)
            let fields: URLEncodedForm = [
                "name": "Zoë O'Brien", "a&b=c+d": "50% off; 1+1=2 & more", "emoji": "✓ 😀",
                "lines": "one\ntwo", "reserved": "/?#[]@!$'()*,;~", "empty": "",
            ]
            let answer = try json(try await api.send(Endpoint<Data>(path: "post", method: .post, body: .form(fields))).value)
            let form = try #require(answer["form"] as? [String: String])
            #expect(form == Dictionary(uniqueKeysWithValues: fields.fields.map { ($0.name, $0.value) }))
            let headers = try #require(answer["headers"] as? [String: String])
            #expect(headers["Content-Type"] == "application/x-www-form-urlencoded")
            await api.shutdown()
        }
    }

    @Test("a multipart form's fields and files reach httpbin's parser: names, values, filenames with quotes and non-ASCII")
    func aMultipartFormReachesHTTPBin() async throws {
        try await withHTTPBin { httpbin in
            let api = client(httpbin.baseURL, retryPolicy: .never)
            var form = MultipartForm()
            form.append(name: "title", value: "Été à Paris & \"friends\"")
            form.append(name: "clé \"x\"", value: "50% + 1 = ✓")
            form.append(name: "notes", data: Data("plain notes".utf8), filename: "notes \"v2\".txt", contentType: "text/plain")
            form.append(name: "pixels", data: Data([0x00, 0xFF, 0x80]), filename: "Ünïcødé 😀.png", contentType: "image/png")

            let posted = try json(try await api.send(Endpoint<Data>(path: "post", method: .post, body: .multipart(form))).value)
            #expect(posted["form"] as? [String: String] == ["title": "Été à Paris & \"friends\"", "clé \"x\"": "50% + 1 = ✓"])
            let files = try #require(posted["files"] as? [String: String])
            #expect(files["notes"] == "plain notes")
            #expect(files["pixels"] == "data:image/png;base64,AP+A")
            let headers = try #require(posted["headers"] as? [String: String])
            #expect(headers["Content-Type"] == form.contentType)

            let parsed = try json(try await api.send(Endpoint<Data>(path: "courier/multipart", method: .post, body: .multipart(form))).value)
            let parts = try #require(parsed["files"] as? [[String: Any]])
            #expect(parts.map { $0["filename"] as? String } == ["notes \"v2\".txt", "Ünïcødé 😀.png"])
            #expect(parts.map { $0["contentType"] as? String } == ["text/plain", "image/png"])
            await api.shutdown()
        }
    }

    @Test("a multipart upload of a file from disk, streamed, parsed by httpbin's parser: filename, type, size and hash")
    func aMultipartUploadFromDisk() async throws {
        let url = try largeFile(megabytes: 3, named: "relevé de compte \"mars\" #3.pdf")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let digest = try sha256(ofFileAt: url)
        try await withHTTPBin { httpbin in
            let api = client(httpbin.baseURL, retryPolicy: .never)
            var form = MultipartForm()
            form.append(name: "account", value: "FR76 3000")
            form.append(name: "statement", fileAt: url)
            let request = try api.makeRequest(Endpoint<Data>(path: "courier/multipart", method: .post, body: .multipart(form)).untyped)
            #expect(request.body == nil)
            var framing = MultipartForm(boundary: form.boundary)   // the same form with an empty file
            framing.append(name: "account", value: "FR76 3000")
            framing.append(name: "statement", data: Data(), filename: url.lastPathComponent, contentType: "application/pdf")
            #expect(request.bodyStream?.length == 3 * 1024 * 1024 + (try framing.encodedData().count))

            let parsed = try json(try await api.send(Endpoint<Data>(path: "courier/multipart", method: .post, body: .multipart(form))).value)
            #expect(parsed["form"] as? [String: [String]] == ["account": ["FR76 3000"]])
            let part = try #require((parsed["files"] as? [[String: Any]])?.first)
            #expect(part["name"] as? String == "statement")
            #expect(part["filename"] as? String == "relevé de compte \"mars\" #3.pdf")
            #expect(part["contentType"] as? String == "application/pdf")
            #expect(part["size"] as? Int == 3 * 1024 * 1024)
            #expect(part["sha256"] as? String == digest)
            await api.shutdown()
        }
    }

    @Test("a body of unknown length goes chunked: a stream, and a multipart form with a stream part, arrive whole")
    func unknownLengthGoesChunked() async throws {
        /// `count` pieces of `piece`, then the end; the length is not known beforehand.
        func generated(_ piece: String, count: Int) -> HTTPBodyStream {
            HTTPBodyStream(length: nil) {
                var left = count
                return { _ in
                    guard left > 0 else { return Data() }
                    left -= 1
                    return Data(piece.utf8)
                }
            }
        }
        // (httpbin refuses chunked requests unless it runs under gunicorn: the scripted server
        // checks the bytes; the framing is the one httpbin parses in the tests above.)
        try await withScriptedServer { server in
            try await server.script("/log", [.status(204)])
            let api = client(server.baseURL, retryPolicy: .never)
            _ = try await api.send(Endpoint<EmptyResponse>(path: "log", method: .post, body: .stream(generated("line\n", count: 1000), contentType: "text/plain")))
            var form = MultipartForm()
            form.append(name: "kind", value: "log")
            form.append(name: "log", stream: generated("abc", count: 500), filename: "today.log", contentType: "text/plain")
            _ = try await api.send(Endpoint<EmptyResponse>(path: "log", method: .post, body: .multipart(form)))

            let received = try await server.requests(path: "/log")
            #expect(received.count == 2)
            #expect(received.allSatisfy { $0.header("Transfer-Encoding") == "chunked" && $0.header("Content-Length") == nil })
            #expect(received.first?.header("Content-Type") == "text/plain")
            #expect(received.first?.bodyText == String(repeating: "line\n", count: 1000))
            var same = MultipartForm(boundary: form.boundary)   // the same form, the stream's bytes in memory
            same.append(name: "kind", value: "log")
            same.append(name: "log", data: Data(String(repeating: "abc", count: 500).utf8), filename: "today.log", contentType: "text/plain")
            #expect(received.last?.body == (try same.encodedData()))
            #expect(received.last?.header("Content-Type") == form.contentType)
            await api.shutdown()
        }
    }

    @Test("a 64 MiB file (16 MiB under TSan) streams from disk: every byte arrives (size and SHA-256), read in chunks, never whole")
    func aLargeFileStreams() async throws {
        let megabytes = isThreadSanitized ? 16 : 64
        let url = try largeFile(megabytes: megabytes, named: "backup.tar")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let digest = try sha256(ofFileAt: url)
        try await withScriptedServer { server in
            try await server.script("/backups", [.status(201)])
            let reads = ReadCounter()
            let api = client(server.baseURL, retryPolicy: .never) { $0.requestInterceptors = [reads] }
            let response = try await api.send(Endpoint<EmptyResponse>(path: "backups", method: .post, body: .file(url)))
            #expect(response.status == 201)

            let received = try #require(try await server.requests(path: "/backups").first)
            #expect(received.bodyLength == megabytes * 1024 * 1024)
            #expect(received.bodySHA256 == digest)
            #expect(received.header("Content-Length") == String(megabytes * 1024 * 1024))
            #expect(received.header("Content-Type") == "application/x-tar")
            let seen = reads.counts.withLock { $0 }
            #expect(seen.heldBody == false)
            #expect(seen.bytes == megabytes * 1024 * 1024)
            #expect(seen.largest <= 1024 * 1024)   // the transport's buffer, not the file
            #expect(seen.reads >= megabytes)
            await api.shutdown()
        }
    }
}

/// Counts what the transport asks of a request's body stream (wrapping its readers), and
/// whether the request held a body in memory instead.
private struct ReadCounter: RequestInterceptor {
    struct Counts: Sendable {
        var reads = 0
        var largest = 0
        var bytes = 0
        var heldBody = false
    }

    let counts = Locked(Counts())

    func intercept(_ request: HTTPRequest, context: RequestContext) async throws -> RequestInterception {
        var request = request
        let counts = counts
        counts.withLock { $0.heldBody = $0.heldBody || request.body != nil }
        guard let stream = request.bodyStream else { return .proceed(request) }
        request.bodyStream = HTTPBodyStream(length: stream.length) {
            let reader = try stream.makeReader()
            return { maxLength in
                let chunk = try reader(maxLength)
                counts.withLock { counts in
                    counts.reads += 1
                    counts.largest = max(counts.largest, chunk.count)
                    counts.bytes += chunk.count
                }
                return chunk
            }
        }
        return .proceed(request)
    }
}
