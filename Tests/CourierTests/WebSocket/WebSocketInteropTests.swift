#if canImport(CCurl)
import Foundation
import Testing
@testable import Courier

/// `client.webSocket` against Python's `websockets` server (PyPI), an independent
/// implementation of RFC 6455.
@Suite("WebSocket interop with Python's websockets")
struct WebSocketInteropTests {
    private func socket(_ server: VenvServer, _ path: String, _ configure: (inout WebSocketOptions) -> Void = { _ in }) async throws -> (APIClient, WebSocket) {
        let api = client(server.baseURL, retryPolicy: .never)
        var options = WebSocketOptions()
        // Not what these tests check: under ThreadSanitizer, parallel 16 MiB echoes keep the
        // shared event loop busy for longer than the default 5 s.
        options.closeTimeout = .seconds(120)
        configure(&options)
        return (api, try await api.webSocket(Endpoint<Data>(path: path), options: options))
    }

    /// `count` bytes that are not all alike.
    private func blob(_ count: Int) -> Data {
        var bytes = [UInt8](repeating: 0, count: count)
        for index in 0..<count { bytes[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index >> 8) }
        return Data(bytes)
    }

    @Test("echo of text and binary from 0 bytes to 16 MiB, sent in 1 MiB frames, compressed or not",
          arguments: [0, 125, 126, 65_535, 65_536, 1 << 20, 16 << 20], [true, false])
    func echo(_ size: Int, compression: Bool) async throws {
        try await withWebSocketsServer { server in
            let (api, socket) = try await socket(server, "echo") { $0.compression = compression }
            #expect(socket.response.headers["Sec-WebSocket-Extensions"]?.hasPrefix("permessage-deflate") ?? false == compression)
            let binary = blob(size)
            let text = String(repeating: "é", count: size / 2)
            try await socket.send(.binary(binary))
            try await socket.send(.text(text))
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .binary(binary))
            #expect(try await iterator.next() == .text(text))
            socket.close()
            #expect(try await iterator.next() == nil)
            #expect(socket.closeCode == .normalClosure)
            await api.shutdown()
        }
    }

    @Test("fragmented both ways: small frames out, 64 KiB fragments back, compressed or not", arguments: [true, false])
    func fragmented(compression: Bool) async throws {
        try await withWebSocketsServer { server in
            let (api, socket) = try await socket(server, "fragments") { $0.outgoingFrameSize = 4096; $0.compression = compression }
            let binary = blob(1 << 20)
            let text = String(repeating: "ab€", count: 100_000)
            try await socket.send(.binary(binary))
            try await socket.send(.text(text))
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .binary(binary))
            #expect(try await iterator.next() == .text(text))
            socket.close()
            await api.shutdown()
        }
    }

    @Test("many messages in flight: sends overtake reads, nothing lost or reordered")
    func pipelined() async throws {
        try await withWebSocketsServer { server in
            let (api, socket) = try await socket(server, "echo") { $0.sendBufferSize = 64 * 1024; $0.receiveBufferSize = 64 * 1024 }
            let count = 2000
            let writer = Task {
                for index in 0..<count { try await socket.send(.text("message \(index) " + String(repeating: "x", count: 500))) }
            }
            var iterator = socket.messages.makeAsyncIterator()
            for index in 0..<count {
                let message = try await iterator.next()
                guard case .text(let text)? = message, text.hasPrefix("message \(index) ") else {
                    Issue.record("message \(index): \(String(describing: message))")
                    break
                }
            }
            try await writer.value
            socket.close()
            await api.shutdown()
        }
    }

    @Test("wss: the transport's extra roots and certificate pins apply to the WebSocket's TLS")
    func secure() async throws {
        let certificates = try TestCertificates.load()
        try await withWebSocketsServer(tls: certificates) { server in
            let url = URL(string: "wss://localhost:\(server.baseURL.port!)/echo")!
            func transport(pin: String) throws -> CurlTransport {
                var configuration = CurlTransport.Configuration()
                configuration.proxy = .none
                configuration.tls.extraRootsFile = certificates.rootFile
                configuration.tls.pins = try CertificatePinner(["localhost": [pin]])
                return CurlTransport(configuration: configuration)
            }
            let api = client(URL(string: "https://localhost")!, transport: try transport(pin: certificates.intermediatePin), retryPolicy: .never)
            let socket = try await api.webSocket(url: url)
            try await socket.send(.text("over tls"))
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("over tls"))
            socket.close()
            await api.shutdown()

            let pinned = client(URL(string: "https://localhost")!, transport: try transport(pin: certificates.unrelatedRootPin), retryPolicy: .never)
            do throws(NetworkError) {
                _ = try await pinned.webSocket(url: url)
                Issue.record("a WebSocket opened to a server whose chain has no pinned key")
            } catch {
                guard case .securityError(let message) = error else { Issue.record("\(error)"); return }
                #expect(message.contains("pinning"))
            }
            await pinned.shutdown()
        }
    }

    @Test("a subprotocol negotiated")
    func subprotocol() async throws {
        try await withWebSocketsServer { server in
            let (api, socket) = try await socket(server, "echo") { $0.subprotocols = ["graphql-transport-ws"] }
            #expect(socket.subprotocol == "graphql-transport-ws")
            #expect(socket.response.headers["Sec-WebSocket-Protocol"] == "graphql-transport-ws")
            socket.close()
            await api.shutdown()
        }
    }
}
#endif
