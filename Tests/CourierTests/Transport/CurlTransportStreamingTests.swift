#if canImport(CCurl)
import Foundation
import Testing

@testable import Courier

/// `CurlTransport.stream`: the head first, the body as it arrives, bounded, cancellable.
/// Ordering is asserted with server-side gates; only the timeout tests depend on time, on the
/// server's own clock, with margins.
@Suite(.timeLimit(.minutes(5))) struct CurlTransportStreamingTests {
    let stall: Duration = .seconds(60)

    func request(_ server: ScriptedServer, _ path: String, maxBytes: Int = .max) -> HTTPRequest {
        HTTPRequest(url: server.baseURL.appendingPathComponent(path), timeout: .seconds(30), maximumResponseSize: maxBytes)
    }

    @Test("each chunk reaches the consumer before the server sends the next (gated drip)")
    func chunksArriveBeforeTheBodyEnds() async throws {
        try await withScriptedServer { server in
            try await server.script("/drip", [.streamed(StreamSpec(chunks: 4, chunkSize: 100, gated: true))])
            let transport = CurlTransport()
            let (head, bytes) = try await transport.stream(request(server, "drip"), stallTimeout: stall)
            #expect(head.status == 200)
            #expect(head.headers["Content-Length"] == "400")
            #expect(head.body.isEmpty)
            var iterator = bytes.makeAsyncIterator()
            var received = 0
            for chunk in 0..<4 {
                // Chunk `chunk + 1` cannot have been sent: the gate for it is still closed.
                while received < (chunk + 1) * 100 {
                    let data = try #require(try await iterator.next())
                    #expect(data.allSatisfy { $0 == UInt8(ascii: "x") })
                    received += data.count
                }
                #expect(received == (chunk + 1) * 100)
                if chunk < 3 { try await server.release(path: "/drip") }
            }
            #expect(try await iterator.next() == nil)
        }
    }

    @Test("a slow consumer pauses the transfer: buffered bytes stay under the high-water mark")
    func backpressure() async throws {
        try await withScriptedServer { server in
            let megabytes = isThreadSanitized ? 16 : 64
            let size = megabytes << 20
            try await server.script("/big", [.streamed(StreamSpec(chunks: megabytes, chunkSize: 1 << 20, pattern: true))])
            let transport = CurlTransport()
            let (_, bytes) = try await transport.stream(request(server, "big"), stallTimeout: stall)
            let buffer = try #require(bytes.owner.source as? ResponseBodyBuffer)
            var iterator = bytes.makeAsyncIterator()
            var offset = try #require(try await iterator.next()).count
            // The consumer stops reading until the transport has had to pause for it.
            await buffer.waitUntilPaused()
            #expect(buffer.pauseCount >= 1)
            let expected = patternBytes(from: 0, count: (4 << 20) + 256)
            while let chunk = try await iterator.next() {
                let start = offset % 256
                let same = chunk.count <= expected.count - start
                    ? chunk == expected[start..<(start + chunk.count)] : chunk == patternBytes(from: offset, count: chunk.count)
                #expect(same, "the chunk at \(offset) differs")
                if !same { return }
                offset += chunk.count
            }
            #expect(offset == size)
            // One write callback (at most CURL_MAX_WRITE_SIZE, 16 KiB) may land above the mark.
            #expect(bytes.maxBufferedBytes < ResponseBodyBuffer.highWater + (16 << 10))
        }
    }

    @Test("cancelling the reading task mid-body closes the connection; the server sees it")
    func cancellationClosesTheConnection() async throws {
        try await withScriptedServer { server in
            try await server.script("/hang", [.streamed(StreamSpec(chunks: 1, chunkSize: 10, declared: 1000, hang: true))])
            let transport = CurlTransport()
            let (_, bytes) = try await transport.stream(request(server, "hang"), stallTimeout: stall)
            let reader = Task {
                var iterator = bytes.makeAsyncIterator()
                _ = try await iterator.next()
                return try await iterator.next()   // waits: the server sends nothing more
            }
            let first = try await server.waitForRequests(path: "/hang", count: 1)
            #expect(first.count == 1)
            reader.cancel()
            await #expect(throws: NetworkError.self) { _ = try await reader.value }
            #expect(try await server.waitForDisconnect(path: "/hang"))
        }
    }

    @Test("dropping the body unread closes the connection")
    func droppingClosesTheConnection() async throws {
        try await withScriptedServer { server in
            try await server.script("/hang", [.streamed(StreamSpec(chunks: 1, chunkSize: 10, declared: 1000, hang: true))])
            let transport = CurlTransport()
            do {
                let (head, _) = try await transport.stream(request(server, "hang"), stallTimeout: stall)
                #expect(head.status == 200)
            }
            #expect(try await server.waitForDisconnect(path: "/hang"))
        }
    }

    @Test("a body that stops before its Content-Length ends the stream with malformedResponse")
    func truncatedBody() async throws {
        try await withHostileServer { server in
            let transport = CurlTransport()
            let (head, bytes) = try await transport.stream(HTTPRequest(url: server.url("/truncated-body"), timeout: .seconds(30)), stallTimeout: stall)
            #expect(head.status == 200)
            var received = 0
            do {
                for try await chunk in bytes { received += chunk.count }
                Issue.record("the truncated body ended without an error")
            } catch {
                guard case .malformedResponse? = error as? NetworkError else { Issue.record("got \(error)"); return }
            }
            #expect(received == 10)
        }
    }

    @Test("the stall timeout counts from the head: a head slower than it leaves the body its whole stall timeout")
    func stallCountsFromTheHead() async throws {
        try await withScriptedServer { server in
            // The head after 3.5 s, no body byte with it, the first event 0.2 s later: the
            // server's own timing, so no round trip of the client's is raced against the stall.
            let events = EventStreamSpec(pieces: ["", "data: a\n\n"], interval: 0.2, end: .hang)
            try await server.script("/late", [ScriptedResponse.events(events).with(delay: 3.5)])
            let transport = CurlTransport()
            let (head, bytes) = try await transport.stream(request(server, "late"), stallTimeout: .seconds(3))
            #expect(head.status == 200)
            var iterator = bytes.makeAsyncIterator()
            #expect(try await iterator.next() == Data("data: a\n\n".utf8))
            bytes.cancel()
        }
    }

    @Test("no bytes for the stall timeout end the stream with timeout")
    func stallTimeout() async throws {
        try await withScriptedServer { server in
            try await server.script("/stall", [.streamed(StreamSpec(chunks: 1, chunkSize: 10, declared: 1000, hang: true))])
            let transport = CurlTransport()
            let (_, bytes) = try await transport.stream(request(server, "stall"), stallTimeout: .milliseconds(200))
            var iterator = bytes.makeAsyncIterator()
            #expect(try await iterator.next()?.count == 10)
            do {
                _ = try await iterator.next()
                Issue.record("the stalled stream did not end")
            } catch {
                guard case .timeout? = error as? NetworkError else { Issue.record("got \(error)"); return }
            }
            #expect(try await server.waitForDisconnect(path: "/stall"))
        }
    }

    @Test("a head that does not come within the request's timeout throws timeout")
    func headTimeout() async throws {
        try await withScriptedServer { server in
            try await server.script("/held", [.hold])
            let transport = CurlTransport()
            var held = request(server, "held")
            held.timeout = .milliseconds(200)
            await #expect(throws: NetworkError.self) { _ = try await transport.stream(held, stallTimeout: stall) }
        }
    }

    @Test("the stream's size limit ends the body with responseTooLarge")
    func sizeLimit() async throws {
        try await withScriptedServer { server in
            try await server.script("/chunked", [.chunked(100_000)])
            let transport = CurlTransport()
            let (_, bytes) = try await transport.stream(request(server, "chunked", maxBytes: 50_000), stallTimeout: stall)
            do {
                for try await _ in bytes {}
                Issue.record("the body passed its limit")
            } catch {
                guard case .responseTooLarge(let limit)? = error as? NetworkError else { Issue.record("got \(error)"); return }
                #expect(limit == 50_000)
            }
        }
    }
}
#endif
