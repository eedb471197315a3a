import Courier
import Foundation

/// The WebSocket rows' own parts: SHA-1 and the accept value, the framing, the echo server's
/// handshake and echo as functions, then both paths against the real server process.
extension SelfTest {
    static func webSocket(_ checks: inout Checks) async {
        let digest = SHA1Digest.hash(of: Data("abc".utf8)).map { String(format: "%02x", $0) }.joined()
        checks.expect(digest == "a9993e364706816aba3e25717850c26c9cd0d89d", "SHA-1 of \"abc\" is \(digest)")
        let long = SHA1Digest.hash(of: Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)).map { String(format: "%02x", $0) }.joined()
        checks.expect(long == "84983e441c3bd26ebaae4aa1f95129e5e54670f1", "SHA-1 of the two-block test vector is \(long)")
        // RFC 6455 §1.3's example.
        let accept = WebSocketHandshake.accept(for: "dGhlIHNhbXBsZSBub25jZQ==")
        checks.expect(accept == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", "the accept value of RFC 6455's key is \(accept)")

        for length in [0, 5, 125, 126, 65_535, 65_536] {
            var frame: [UInt8] = []
            WebSocketFraming.appendHead(to: &frame, opcode: WebSocketFraming.binaryOpcode, length: length, maskKey: 0x0102_0304)
            let head = frame.withUnsafeBytes { WebSocketFraming.head($0) }
            checks.expect(
                head == .init(fin: true, opcode: 2, maskKey: 0x0102_0304, payloadLength: length, headLength: frame.count),
                "a \(length)-byte frame's head reads back as \(String(describing: head))")
            let partial = frame.dropLast().withUnsafeBytes { WebSocketFraming.head($0) }
            checks.expect(partial == nil, "a \(length)-byte frame's head read before it all arrived")
        }
        var bytes = (0..<37).map { UInt8($0) }
        bytes.withUnsafeMutableBytes { WebSocketFrame.mask($0, key: 0xA1B2_C3D4) }
        let key: [UInt8] = [0xA1, 0xB2, 0xC3, 0xD4]
        checks.expect(bytes == (0..<37).map { UInt8($0) ^ key[$0 % 4] }, "masking is not byte i XOR key[i % 4]")

        #if canImport(Glibc)
        handshake(&checks)
        echo(&checks)
        #endif
        #if canImport(CCurl)
        await live(&checks)
        #endif
    }

    #if canImport(Glibc)
    private static func handshake(_ checks: inout Checks) {
        let request = "GET /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nsec-websocket-key:  dGhlIHNhbXBsZSBub25jZQ== \r\nSec-WebSocket-Version: 13\r\n\r\n"
        let bytes = Array(request.utf8)
        checks.expect(WebSocketEchoServer.endOfHead(bytes + [1, 2]) == bytes.count, "the end of the request head is not found")
        checks.expect(WebSocketEchoServer.endOfHead(Array(bytes.dropLast())) == nil, "a head without its empty line taken as whole")
        let answer = WebSocketEchoServer.handshakeAnswer(bytes[...])
        let text = String(decoding: answer.bytes, as: UTF8.self)
        checks.expect(
            answer.upgraded && text.hasPrefix("HTTP/1.1 101 ") && text.contains("\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n")
                && !text.lowercased().contains("extensions") && text.hasSuffix("\r\n\r\n"),
            "the echo server's 101 is \(text.debugDescription)")
        let refused = WebSocketEchoServer.handshakeAnswer(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)[...])
        checks.expect(!refused.upgraded && String(decoding: refused.bytes, as: UTF8.self).hasPrefix("HTTP/1.1 400 "), "a request without a key is not refused")
    }

    private static func echo(_ checks: inout Checks) {
        var input: [UInt8] = []
        var payloads: [[UInt8]] = []
        for (index, length) in [3, 200, 70_000].enumerated() {
            let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 7 + index) }
            payloads.append(payload)
            WebSocketFraming.appendHead(to: &input, opcode: WebSocketFraming.binaryOpcode, length: length, maskKey: 0x1234_5678 &+ UInt32(index))
            let start = input.count
            input += payload
            input.withUnsafeMutableBytes { WebSocketFrame.mask(UnsafeMutableRawBufferPointer(rebasing: $0[start...]), key: 0x1234_5678 &+ UInt32(index)) }
        }
        WebSocketFraming.appendHead(to: &input, opcode: WebSocketFraming.pingOpcode, length: 2, maskKey: 0)
        input += [0x68, 0x69]
        let whole = input
        // Everything but the last byte: the ping waits for it.
        input.removeLast()
        var output: [UInt8] = []
        checks.expect(!WebSocketEchoServer.echo(&input, into: &output), "data frames taken for a close")
        var expected: [UInt8] = []
        for payload in payloads {
            WebSocketFraming.appendHead(to: &expected, opcode: WebSocketFraming.binaryOpcode, length: payload.count, maskKey: nil)
            expected += payload
        }
        checks.expect(output == expected, "the echoes are not the frames sent, unmasked (\(output.count) bytes, expected \(expected.count))")
        checks.expect(input.count == 7, "a partial ping left \(input.count) bytes, not its 7")
        input.append(whole.last!)
        output = []
        WebSocketFraming.appendHead(to: &input, opcode: WebSocketFraming.closeOpcode, length: 2, maskKey: 0)
        input += [0x03, 0xE8]
        WebSocketFraming.appendHead(to: &input, opcode: WebSocketFraming.binaryOpcode, length: 1, maskKey: 0)
        input += [0x00]
        checks.expect(WebSocketEchoServer.echo(&input, into: &output), "a close not taken as one")
        checks.expect(output == [0x8A, 2, 0x68, 0x69, 0x88, 2, 0x03, 0xE8], "a ping and a close answered as \(output)")
        checks.expect(input.count == 7, "a frame after the close was answered")
    }
    #endif

    #if canImport(CCurl)
    /// Both paths echo a few messages of each size through the real server's process.
    private static func live(_ checks: inout Checks) async {
        guard case .success(let server) = await WebSocketEchoProcess.start() else {
            checks.expect(false, "the WebSocket echo server did not start")
            return
        }
        defer { server.stop() }
        let client = WebSocketComparison.client(port: server.port)
        for size in [1, 125, 126, 65_536, 1 << 20] {
            let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 13) }
            for window in [1, 4] {
                let raw = await RawCurlWebSocket.measure(port: server.port, payload: payload, messages: 20, window: window)
                checks.expect(raw.failures == 0 && raw.latencies.count == 20, "raw libcurl echoed \(raw.latencies.count) of 20 \(size)-byte messages: \(raw.firstFailure ?? "")")
                let courier = await WebSocketComparison.echo(client, port: server.port, payload: Data(payload), messages: 20, window: window)
                checks.expect(courier.failures == 0 && courier.latencies.count == 20, "webSocket echoed \(courier.latencies.count) of 20 \(size)-byte messages: \(courier.firstFailure ?? "")")
            }
            let handedOff = await HandedOffWebSocket.measure(port: server.port, payload: payload, messages: 20)
            checks.expect(handedOff.failures == 0 && handedOff.latencies.count == 20, "hand-offs echoed \(handedOff.latencies.count) of 20 \(size)-byte messages: \(handedOff.firstFailure ?? "")")
        }
        await client.shutdown()
    }
    #endif
}
