import Courier
import CourierOpenAPI
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// The generated client over ``CourierTransport`` against httpbin (a real server: Werkzeug's
/// query, JSON and multipart parsing), run from the virtual environment the root package's
/// tests make at `.build/venv`. Without it the tests are skipped, except under
/// `COURIER_REQUIRE_TEST_TOOLS=1` (CI), where they fail.
@Suite(.timeLimit(.minutes(5))) struct CourierTransportHTTPBinTests {
    /// Runs `body` with a fresh httpbin and a generated client of it.
    private func withHTTPBin(
        middlewares: [any ClientMiddleware] = [], _ body: (Client, APIClient) async throws -> Void
    ) async throws {
        guard let python = LoopbackServer.venvPython else {
            if LoopbackServer.toolsRequired { Issue.record("no virtual environment at \(LoopbackServer.root.path)/.build/venv (the root package's tests make it)") }
            return
        }
        let server = try await LoopbackServer.start(script: "httpbin_server.py", python: python)
        defer { server.stop() }
        let api = courierClient(server.baseURL)
        try await body(generatedClient(server.baseURL, CourierTransport(client: api), middlewares: middlewares), api)
        await api.shutdown()
    }

    @Test("GET with a path parameter and a repeated query parameter, as httpbin parsed them")
    func getWithParameters() async throws {
        try await withHTTPBin { client, _ in
            let echo = try await client.getAnything(path: .init(item: "report 1"), query: .init(tag: ["a", "b"], limit: 3)).ok.body.json
            #expect(echo.method == "GET")
            #expect(echo.url.hasSuffix("/anything/report%201?tag=a&tag=b&limit=3"))
            #expect(echo.args?.additionalProperties.value["tag"] as? [String] == ["a", "b"])
            #expect(echo.args?.additionalProperties.value["limit"] as? String == "3")
        }
    }

    @Test("a JSON POST, as httpbin decoded it")
    func jsonPost() async throws {
        try await withHTTPBin { client, _ in
            let echo = try await client.postAnything(body: .json(.init(name: "Ada"))).ok.body.json
            #expect(echo.method == "POST")
            #expect(echo.json?.name == "Ada")
            #expect(echo.headers?.additionalProperties["Content-Type"]?.hasPrefix("application/json") == true)
        }
    }

    @Test("a multipart upload, as Werkzeug parsed its parts (httpbin refuses a chunked body: a middleware gives it a length)")
    func multipartUpload() async throws {
        try await withHTTPBin(middlewares: [KnownLengthMiddleware(limit: 1 << 20)]) { client, _ in
            let file = PatternChunks(count: 700_000, chunk: 16_384)
            let report = try await client.uploadFiles(body: .multipartForm([
                .description(.init(payload: .init(body: HTTPBody("monthly export")))),
                .file(.init(payload: .init(body: file.body), filename: "export.bin")),
            ])).ok.body.json
            #expect(report.form.additionalProperties["description"] == ["monthly export"])
            let part = try #require(report.files.first)
            #expect(report.files.count == 1)
            #expect(part.name == "file" && part.filename == "export.bin")
            #expect(part.size == 700_000)
        }
    }

    @Test("a streamed download of httpbin's /stream-bytes arrives whole, chunk by chunk")
    func streamedDownload() async throws {
        try await withHTTPBin { client, _ in
            let body = try await client.streamBytes(path: .init(count: 100_000), query: .init(chunkSize: 4096)).ok.body.binary
            var received = 0
            var chunks = 0
            for try await chunk in body {
                received += chunk.count
                chunks += 1
            }
            #expect(received == 100_000)
            #expect(chunks > 1)
        }
    }
}

/// Reads a request body of unknown length whole (up to `limit`) so that it is sent with a
/// `Content-Length`: httpbin (Werkzeug's development server) answers a chunked request 501.
struct KnownLengthMiddleware: ClientMiddleware {
    let limit: Int

    func intercept(
        _ request: HTTPTypes.HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPTypes.HTTPRequest, HTTPBody?, URL) async throws -> (HTTPTypes.HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPTypes.HTTPResponse, HTTPBody?) {
        guard let body, body.length == .unknown else { return try await next(request, body, baseURL) }
        return try await next(request, HTTPBody(try await ArraySlice(collecting: body, upTo: limit)), baseURL)
    }
}
