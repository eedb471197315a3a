#if canImport(CCurl)
import CourierTesting
import Foundation
import Testing
@testable import Courier

/// `client.webSocket` against `websocket_peer.py`, a raw-socket peer that plays one scenario
/// per path, Autobahn-style, and logs what it saw from the client.
@Suite("WebSocket against a hostile peer")
struct WebSocketPeerTests {
    private func open(
        _ peer: WebSocketPeer, _ path: String, id: String, clock: any TimeSource = SystemTimeSource(),
        _ configure: (inout WebSocketOptions) -> Void = { _ in }
    ) async throws -> (APIClient, WebSocket) {
        let api = client(peer.baseURL, retryPolicy: .never, clock: clock)
        var options = WebSocketOptions()
        // Not what most tests check: on a loaded machine under ThreadSanitizer a close handshake
        // can outlast the default 5 s (the test of the timeout sets its own).
        options.closeTimeout = .seconds(120)
        configure(&options)
        return (api, try await api.webSocket(url: peer.url(path, id: id), options: options))
    }

    private func collect(_ socket: WebSocket) async throws -> [WebSocketMessage] {
        var messages: [WebSocketMessage] = []
        for try await message in socket.messages { messages.append(message) }
        return messages
    }

    /// What reading `socket` to its end throws.
    private func failure(_ socket: WebSocket) async -> NetworkError? {
        do {
            _ = try await collect(socket)
            return nil
        } catch let error as NetworkError {
            return error
        } catch {
            return .unknown(underlying: error)
        }
    }

    @Test("echo: text and binary, masked, fragmented by the client, then a clean close both ways")
    func echo() async throws {
        try await withWebSocketPeer { peer in
            let (api, socket) = try await open(peer, "/echo", id: "echo") { $0.outgoingFrameSize = 1000 }
            #expect(socket.response.status == 101)
            try await socket.send(.text("héllo"))
            let blob = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0) })
            try await socket.send(.binary(blob))
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("héllo"))
            #expect(try await iterator.next() == .binary(blob))
            socket.close(.normalClosure, reason: "done")
            #expect(try await iterator.next() == nil)
            #expect(socket.closeCode == .normalClosure)
            let log = try await peer.log("echo", waitingFor: "close")
            #expect(!log.contains { $0.event == "unmasked" })
            #expect(log.filter { $0.event == "message" }.map(\.frames) == [1, 5])
            #expect(log.last == WebSocketPeer.Event(event: "close", code: 1000, reason: "done", payload: nil, opcode: nil, length: nil, frames: nil))
            await api.shutdown()
        }
    }

    @Test("a text split inside code points across fragments, with a ping between them")
    func fragmentedText() async throws {
        try await withWebSocketPeer { peer in
            let (api, socket) = try await open(peer, "/fragmented-text", id: "frag")
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("héllo, wörld €"))
            let log = try await peer.log("frag", waitingFor: "pong")
            #expect(log.contains { $0.event == "pong" && $0.payload == "mid" })
            socket.close()
            await api.shutdown()
        }
    }

    @Test("the server's ping is answered with its payload")
    func pingAnswered() async throws {
        try await withWebSocketPeer { peer in
            let (api, socket) = try await open(peer, "/ping", id: "ping")
            let log = try await peer.log("ping", waitingFor: "pong")
            #expect(log.contains { $0.event == "pong" && $0.payload == "hello" })
            socket.close()
            await api.shutdown()
        }
    }

    @Test("the server's close ends the messages, its code and reason kept and echoed",
          arguments: [(path: "/close?code=4001&reason=bye", code: 4001, reason: "bye", messages: 0),
                      (path: "/text-then-close", code: 1000, reason: "done", messages: 2)])
    func serverCloses(_ scenario: (path: String, code: Int, reason: String, messages: Int)) async throws {
        try await withWebSocketPeer { peer in
            let (api, socket) = try await open(peer, scenario.path, id: "close")
            let messages = try await collect(socket)
            #expect(messages.count == scenario.messages)
            #expect(socket.closeCode?.rawValue == UInt16(scenario.code))
            #expect(socket.closeReason == scenario.reason)
            let log = try await peer.log("close", waitingFor: "close")
            #expect(log.last?.code == scenario.code)
            await expectSendFails(socket)
            await api.shutdown()
        }
    }

    private func expectSendFails(_ socket: WebSocket) async {
        do {
            try await socket.send(.text("late"))
            Issue.record("a send after the close did not throw")
        } catch {}
    }

    @Test("a peer that breaks the protocol gets the close code the RFC names, and the reader an error",
          arguments: [("/invalid-utf8", 1007), ("/invalid-utf8-split", 1007), ("/reserved-bits", 1002), ("/unknown-opcode", 1002),
                      ("/fragmented-ping", 1002), ("/big-ping", 1002), ("/masked", 1002), ("/continuation-first", 1002),
                      ("/bad-close-code", 1002), ("/one-byte-close", 1002), ("/oversized", 1009)])
    func protocolViolations(_ scenario: (String, Int)) async throws {
        try await withWebSocketPeer { peer in
            let (api, socket) = try await open(peer, scenario.0, id: "bad")
            let error = await failure(socket)
            if scenario.1 == 1009 {
                guard case .responseTooLarge? = error else { Issue.record("\(String(describing: error))"); return }
            } else if case .malformedResponse(let message, _)? = error {
                #expect(message.contains("closed with \(scenario.1)"), "\(message)")
            } else {
                Issue.record("\(scenario.0): \(String(describing: error))")
            }
            let log = try await peer.log("bad", waitingFor: "close")
            #expect(log.last?.event == "close" && log.last?.code == scenario.1, "\(scenario.0): \(log)")
            await api.shutdown()
        }
    }

    @Test("read only as fast as consumed: a flooding server stalls while nobody reads, then all arrives")
    func flood() async throws {
        try await withWebSocketPeer { peer in
            let (count, size) = (256, 256 * 1024)
            let (api, socket) = try await open(peer, "/flood?n=\(count)&size=\(size)", id: "flood") { $0.receiveBufferSize = 1 << 20 }
            // Nobody reads: the client holds its bounded buffer, the kernel's buffers fill, and
            // the server can write no more.
            let stall = try await peer.log("flood", waitingFor: "stalled").first { $0.event == "stalled" }
            let stalledAt = try #require(stall?.length)
            #expect(stalledAt < count * size / 2, "the server wrote \(stalledAt) bytes with nobody reading")
            var iterator = socket.messages.makeAsyncIterator()
            for index in 0..<count {
                guard case .binary(let data)? = try await iterator.next(), data.count == size, data.first == 0 else {
                    Issue.record("message \(index) missing or wrong")
                    break
                }
            }
            #expect(try await peer.log("flood", waitingFor: "sent").last?.length == count * (size + 10))
            socket.close()
            await api.shutdown()
        }
    }

    @Test("a peer that drops the TCP connection: the message before it, then connectionLost")
    func drop() async throws {
        try await withWebSocketPeer { peer in
            let (api, socket) = try await open(peer, "/drop", id: "drop")
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("bye"))
            do throws(NetworkError) {
                _ = try await iterator.next()
                Issue.record("a dropped connection ended cleanly")
            } catch {
                guard case .connectionLost = error else { Issue.record("\(error)"); return }
            }
            await api.shutdown()
        }
    }

    @Test("a peer that never answers our close is dropped after the close timeout (the client's clock)")
    func neverAnswersClose() async throws {
        try await withWebSocketPeer { peer in
            let clock = ManualClock()
            let (api, socket) = try await open(peer, "/never-close", id: "never", clock: clock) { $0.closeTimeout = .seconds(5) }
            socket.close(.normalClosure, reason: "bye")
            _ = try await peer.log("never", waitingFor: "close")
            await clock.waitForSleepers()
            clock.advance(by: .seconds(5))
            let error = await failure(socket)
            guard case .timeout? = error else { Issue.record("\(String(describing: error))"); return }
            #expect(try await peer.log("never", waitingFor: "eof").last?.event == "eof")
            await api.shutdown()
        }
    }

    @Test("keep-alive: pings at the interval; a peer whose pong never comes fails the socket")
    func deadPeer() async throws {
        try await withWebSocketPeer { peer in
            let clock = ManualClock()
            let (api, socket) = try await open(peer, "/silent", id: "silent", clock: clock) { $0.pingInterval = .seconds(10) }
            await clock.waitForSleepers()
            clock.advance(by: .seconds(10))   // the first ping
            await clock.waitForSleepers()
            clock.advance(by: .seconds(10))   // its pong never came
            let error = await failure(socket)
            guard case .timeout? = error else { Issue.record("\(String(describing: error))"); return }
            #expect(try await peer.log("silent", waitingFor: "eof").last?.event == "eof")
            await api.shutdown()
        }
    }

    @Test("cancelling the reading task closes the socket with 1001")
    func cancelReader() async throws {
        try await withWebSocketPeer { peer in
            let (api, socket) = try await open(peer, "/echo", id: "cancel")
            let reader = Task { await failure(socket) }
            try await socket.send(.text("one"))
            _ = try await peer.log("cancel", waitingFor: "message")
            reader.cancel()
            guard case .cancelled? = await reader.value else { Issue.record("the reader did not end cancelled"); return }
            let log = try await peer.log("cancel", waitingFor: "close")
            #expect(log.last?.code == 1001)
            await api.shutdown()
        }
    }

    @Test("handshake answers that do not complete it are refused",
          arguments: ["/wrong-protocol", "/bad-accept", "/extension"])
    func badHandshakes(_ path: String) async throws {
        try await withWebSocketPeer { peer in
            let api = client(peer.baseURL, retryPolicy: .never)
            do throws(NetworkError) {
                _ = try await api.webSocket(url: peer.url(path, id: "hs"), options: WebSocketOptions())
                Issue.record("\(path) opened")
            } catch {
                guard case .invalidResponse = error else { Issue.record("\(path): \(error)"); return }
            }
            await api.shutdown()
        }
    }

    @Test("a subprotocol offered and chosen; the handshake's response at hand")
    func subprotocol() async throws {
        try await withWebSocketPeer { peer in
            let (api, socket) = try await open(peer, "/protocol", id: "proto") { $0.subprotocols = ["graphql-transport-ws", "graphql-ws"] }
            #expect(socket.subprotocol == "graphql-transport-ws")
            #expect(socket.response.headers["Upgrade"] == "websocket")
            socket.close()
            await api.shutdown()
        }
    }

    @Test("a 401 at the handshake: the session refreshes once and the handshake is sent again")
    func renewal() async throws {
        try await withWebSocketPeer { peer in
            let api = client(peer.baseURL, retryPolicy: .never) { $0.session = .init(persistence: InMemoryTokenPersistence()) }
            try await api.session.signIn(Tokens(accessToken: "old", refreshToken: "r1", expiresAt: nil))
            let socket = try await api.webSocket(Endpoint<Data>(path: "auth", query: [URLQueryItem(name: "id", value: "auth")]))
            try await socket.send(.text("authorized"))
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("authorized"))
            let requests = try await peer.log("auth").filter { $0.event == "request" }
            #expect(requests.count == 2)
            socket.close()
            await api.shutdown()
        }
    }

    @Test("without a session, a 401 at the handshake throws unauthorized")
    func unauthorized() async throws {
        try await withWebSocketPeer { peer in
            let api = client(peer.baseURL, retryPolicy: .never)
            do throws(NetworkError) {
                _ = try await api.webSocket(url: peer.url("/auth", id: "401"))
                Issue.record("a 401 opened")
            } catch {
                guard case .unauthorized(let response) = error else { Issue.record("\(error)"); return }
                #expect(response?.status == 401)
            }
            await api.shutdown()
        }
    }

    @Test("plain ws to a host that is not loopback is refused before any byte is sent")
    func insecureRefused() async throws {
        let api = client(URL(string: "https://example.invalid")!, retryPolicy: .never)
        do throws(NetworkError) {
            _ = try await api.webSocket(url: URL(string: "ws://example.invalid/socket")!)
            Issue.record("plain ws to a remote host opened")
        } catch {
            guard case .securityError = error else { Issue.record("\(error)"); return }
        }
        await api.shutdown()
    }
}
#endif
