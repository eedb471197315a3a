#if canImport(CCurl)
import Foundation
import Testing
@testable import Courier

/// CurlTransport against a raw-socket server that breaks HTTP on purpose
/// (`Support/hostile_server.py`): every broken response ends in the error a caller would expect,
/// with the right ``NetworkError/isRetryable``, and never crashes or hangs the transport, which
/// goes on serving afterwards.
@Suite struct CurlTransportHostileTests {
    let transport = CurlTransport()

    // MARK: Broken framing: malformedResponse, retryable

    @Test("a status line and then a close is a malformed response")
    func aStatusLineAndThenACloseIsAMalformedResponse() async throws {
        try await withHostileServer { server in
            let error = await failingGet("/truncated-status", on: server)
            expectMalformed(error)
            try await expectStillServes(server)
        }
    }

    @Test("half a header block and then a close is a malformed response")
    func halfAHeaderBlockAndThenACloseIsAMalformedResponse() async throws {
        try await withHostileServer { server in
            let error = await failingGet("/truncated-headers", on: server)
            expectMalformed(error)
            try await expectStillServes(server)
        }
    }

    @Test("two different Content-Lengths are a malformed response")
    func twoDifferentContentLengthsAreAMalformedResponse() async throws {
        try await withHostileServer { server in
            let error = await failingGet("/two-lengths", on: server)
            expectMalformed(error)
            try await expectStillServes(server)
        }
    }

    @Test("a chunk size that is not hex is a malformed response")
    func aChunkSizeThatIsNotHexIsAMalformedResponse() async throws {
        try await withHostileServer { server in
            let error = await failingGet("/bad-chunk", on: server)
            expectMalformed(error)
            // libcurl's own account of the failure, not only its code's generic message.
            if case .malformedResponse(let reason, let cause)? = error {
                #expect(reason.contains("chunked-encoding"))
                #expect((cause as? CurlError)?.code == 56)
            }
            try await expectStillServes(server)
        }
    }

    @Test("a body cut short of its Content-Length is a malformed response")
    func aBodyCutShortOfItsContentLengthIsAMalformedResponse() async throws {
        try await withHostileServer { server in
            let error = await failingGet("/truncated-body", on: server)
            expectMalformed(error)
            try await expectStillServes(server)
        }
    }

    @Test("a garbled status line is a malformed response", arguments: ["/garbled-status", "/garbled-protocol"])
    func aGarbledStatusLineIsAMalformedResponse(path: String) async throws {
        try await withHostileServer { server in
            let error = await failingGet(path, on: server)
            expectMalformed(error)
            try await expectStillServes(server)
        }
    }

    @Test("a header block over the limit is refused while other requests go on")
    func aHeaderBlockOverTheLimitIsRefusedWhileOtherRequestsGoOn() async throws {
        try await withHostileServer { server in
            let transport = self.transport
            // 10,000 fields of 36 bytes: 360,000 bytes, over the 256 KiB bound. The server sends
            // the first 500, then holds the rest back until it has answered 8 more `/ok`s.
            let flood = Task {
                try await transport.send(HTTPRequest(url: server.url("/many-headers?fields=10000&oks=8"), timeout: .seconds(60)))
            }
            #expect(try await server.awaitEvent("many-headers-streaming"))
            // The same transport answers other requests while that head is half sent: were they
            // stuck behind it, they would time out (the server waits up to 30 s for them).
            try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await transport.send(HTTPRequest(url: server.url("/ok"), timeout: .seconds(10))) }
                }
                for try await response in group {
                    #expect(response.status == 200)
                    #expect(response.body == Data("ok".utf8))
                }
            }
            let error = await failure(of: flood)
            expectMalformed(error)
            if case .malformedResponse(let reason, _)? = error {
                #expect(reason.contains("\(256 * 1024)"))
            }
            #expect(try await server.stats().manyHeadersReleasedBy == "oks")
            try await expectStillServes(server)
        }
    }

    // MARK: Too large: refused before the body, not retryable

    @Test("a huge Content-Length is refused before the body")
    func aHugeContentLengthIsRefusedBeforeTheBody() async throws {
        try await withHostileServer { server in
            // The server sends 3 bytes of the body, then holds the connection: only a refusal at
            // the head ends the exchange before its timeout.
            let error = await failingGet("/huge-length", on: server, timeout: .seconds(60))
            guard case .responseTooLarge(let limit)? = error else {
                Issue.record("expected responseTooLarge, got \(String(describing: error))")
                return
            }
            #expect(limit == HTTPRequest.defaultMaximumResponseSize)
            #expect(error?.isRetryable == false)
            try await expectStillServes(server)
        }
    }

    // MARK: Stalls: timeout, retryable

    @Test("a head dribbled a byte at a time times out at the request's timeout")
    func aHeadDribbledAByteAtATimeTimesOutAtTheRequestsTimeout() async throws {
        try await withHostileServer { server in
            let clock = ContinuousClock()
            let start = clock.now
            let error = await failingGet("/slowloris", on: server, timeout: .seconds(1))
            let elapsed = clock.now - start
            expectTimeout(error)
            #expect(elapsed >= .milliseconds(900))   // libcurl counts whole milliseconds from its own clock
            // No upper bound: the dribble never ends, so the timeout error is the timer's; how
            // late it reaches a loaded machine's cooperative pool says nothing about Courier.
            try await expectStillServes(server)
        }
    }

    @Test("a server that reads the request and never answers times out")
    func aServerThatReadsTheRequestAndNeverAnswersTimesOut() async throws {
        try await withHostileServer { server in
            let clock = ContinuousClock()
            let start = clock.now
            let error = await failingGet("/never-answer", on: server, timeout: .seconds(1))
            let elapsed = clock.now - start
            expectTimeout(error)
            #expect(elapsed >= .milliseconds(900))   // libcurl counts whole milliseconds from its own clock
            try await expectStillServes(server)
        }
    }

    // MARK: A reset before any answer: connectionLost, retryable

    @Test("a connection reset before any answer is a lost connection")
    func aConnectionResetBeforeAnyAnswerIsALostConnection() async throws {
        try await withHostileServer { server in
            let error = await failingGet("/reset", on: server)
            guard case .connectionLost("127.0.0.1", let port, let cause)? = error else {
                Issue.record("expected connectionLost, got \(String(describing: error))")
                return
            }
            #expect(port == server.url("/").port)
            #expect((cause as? CurlError)?.code == 56)
            #expect(error?.isRetryable == true)
            try await expectStillServes(server)
        }
    }

    // MARK: Odd but valid: answered

    @Test("a header value that is not UTF-8 still arrives")
    func aHeaderValueThatIsNotUTF8StillArrives() async throws {
        try await withHostileServer { server in
            let response = try await transport.send(HTTPRequest(url: server.url("/latin1-header"), timeout: .seconds(10)))
            #expect(response.status == 200)
            #expect(response.body == Data("ok".utf8))
            // 0xE9 0xFF are not UTF-8: each becomes U+FFFD, the rest of the value is kept.
            #expect(response.headers["X-Name"] == "caf\u{FFFD}\u{FFFD}")
        }
    }

    @Test("two Set-Cookie fields arrive as two fields in order")
    func twoSetCookieFieldsArriveAsTwoFieldsInOrder() async throws {
        try await withHostileServer { server in
            let response = try await transport.send(HTTPRequest(url: server.url("/set-cookie"), timeout: .seconds(10)))
            #expect(response.status == 200)
            #expect(response.headers.values(for: "Set-Cookie") == ["a=1; Path=/", "b=2; Path=/"])
        }
    }

    @Test("an interim 100 response is skipped and its fields are not kept")
    func anInterim100ResponseIsSkippedAndItsFieldsAreNotKept() async throws {
        try await withHostileServer { server in
            let response = try await transport.send(HTTPRequest(url: server.url("/continue"), timeout: .seconds(10)))
            #expect(response.status == 200)
            #expect(response.body == Data("ok".utf8))
            #expect(!response.headers.contains("X-Interim"))
            #expect(response.headers["Content-Type"] == "text/plain")
        }
    }

    // MARK: Helpers

    /// The error of a GET of `path` with `timeout`; records an issue if it was answered.
    @Test("100 Continue without end is stopped by the head's bound, which counts every interim head")
    func continueFlood() async throws {
        try await withHostileServer { server in
            let error = await failingGet("/continue-flood", on: server)
            expectMalformed(error)
            try await expectStillServes(server)
        }
    }

    @Test("trailer fields of a chunked body are not taken for header fields")
    func trailersAreNotHeaders() async throws {
        try await withHostileServer { server in
            let response = try await transport.send(HTTPRequest(url: server.url("/trailers"), timeout: .seconds(10)))
            #expect(response.status == 200)
            #expect(response.body == Data("hello".utf8))
            #expect(response.headers["X-Trailer"] == nil)
            #expect(response.headers["Set-Cookie"] == nil)
            #expect(response.headers["Trailer"] == "X-Trailer")
            try await expectStillServes(server)
        }
    }

    @Test("a header line past libcurl's 100 KB line buffer is a malformed response")
    func aHeaderLineTooLong() async throws {
        try await withHostileServer { server in
            let error = await failingGet("/long-header-line", on: server)
            expectMalformed(error)
            try await expectStillServes(server)
        }
    }

    @Test("a proxy that refuses CONNECT is cannotConnect to the target for the proxy's reason, not a malformed response")
    func aProxyRefusingConnect() async throws {
        try await withHostileServer { server in
            var configuration = CurlTransport.Configuration()
            configuration.proxy = .url(server.url("/"))
            let proxied = CurlTransport(configuration: configuration)
            let error = await #expect(throws: NetworkError.self) {
                try await proxied.send(HTTPRequest(url: URL(string: "https://courier.invalid/x")!, timeout: .seconds(10)))
            }
            guard case .cannotConnect("courier.invalid", 443, .proxy, let cause)? = error else {
                Issue.record("got \(String(describing: error))"); return
            }
            #expect((cause as? CurlError)?.message.contains("CONNECT") == true)
            #expect(error?.description.hasPrefix("cannotConnect courier.invalid:443: the proxy failed") == true)
            #expect(error?.isRetryable == false)
            try await expectStillServes(server)
        }
    }

    private func failingGet(
        _ path: String, on server: HostileServer, timeout: Duration = .seconds(10),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> NetworkError? {
        do {
            let response = try await transport.send(HTTPRequest(url: server.url(path), timeout: timeout))
            Issue.record("expected an error, got status \(response.status) with \(response.body.count) bytes", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    /// The transport still answers a plain request after the hostile one.
    private func expectStillServes(_ server: HostileServer, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let response = try await transport.send(HTTPRequest(url: server.url("/ok"), timeout: .seconds(10)))
        #expect(response.status == 200, sourceLocation: sourceLocation)
        #expect(response.body == Data("ok".utf8), sourceLocation: sourceLocation)
    }

    private func expectMalformed(_ error: NetworkError?, sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .malformedResponse? = error else {
            Issue.record("expected malformedResponse, got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(error?.isRetryable == true, sourceLocation: sourceLocation)
    }

    private func expectTimeout(_ error: NetworkError?, sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .timeout(.attempt, _)? = error else {
            Issue.record("expected an attempt timeout, got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(error?.isRetryable == true, sourceLocation: sourceLocation)
    }
}
#endif
