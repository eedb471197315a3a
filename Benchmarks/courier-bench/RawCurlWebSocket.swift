#if canImport(CCurl)
import CCurl
import Courier
import Foundation
import Glibc

/// The floor of a WebSocket over libcurl: what a C program would do on one thread. libcurl
/// connects (`CURLOPT_CONNECT_ONLY`, as ``CurlTransport``'s WebSocket does); the loop writes the
/// Upgrade, reads the 101, then frames, masks and parses binary messages itself over
/// `curl_easy_send`/`curl_easy_recv`, waiting in `poll` on the socket. `window` messages are
/// kept in flight: each echo that arrives (checked byte for byte) lets the next one go.
enum RawCurlWebSocket {
    static func measure(port: Int, payload: [UInt8], messages: Int, window: Int) async -> Measurement {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: run(port: port, payload: payload, messages: messages, window: window))
            }
        }
    }

    private static func run(port: Int, payload: [UInt8], messages: Int, window: Int) -> Measurement {
        let (multi, easy, opened) = connect(port: port)
        defer { disconnect(multi, easy) }
        guard let socket = opened else {
            var failed = Measurement(requests: messages, failures: messages, elapsed: .seconds(1), latencies: [])
            failed.firstFailure = "the raw loop could not open the WebSocket"
            return failed
        }
        var output: [UInt8] = []
        output.reserveCapacity(window * (payload.count + 14))
        var written = 0
        var input: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 256 * 1024)
        var sendTimes = [UInt64](repeating: 0, count: messages)
        var latencies: [Duration] = []
        latencies.reserveCapacity(messages)
        var random = UInt64(truncatingIfNeeded: MonotonicTime.now) | 1
        var (sent, failures) = (0, 0)
        var firstFailure: String?
        let usageBefore = ProcessUsage.now
        let start = MonotonicTime.now
        loop: while latencies.count + failures < messages {
            while sent < messages, sent - latencies.count - failures < window {
                // xorshift64: a fresh mask key per frame, as RFC 6455 asks.
                random ^= random << 13
                random ^= random >> 7
                random ^= random << 17
                let key = UInt32(truncatingIfNeeded: random)
                WebSocketFraming.appendHead(to: &output, opcode: WebSocketFraming.binaryOpcode, length: payload.count, maskKey: key)
                let payloadStart = output.count
                output += payload
                output.withUnsafeMutableBytes { WebSocketFrame.mask(UnsafeMutableRawBufferPointer(rebasing: $0[payloadStart...]), key: key) }
                sendTimes[sent] = MonotonicTime.now
                sent += 1
            }
            var writeBlocked = false
            while written < output.count {
                var count = 0
                let code = output.withUnsafeBytes { curl_easy_send(easy, $0.baseAddress! + written, $0.count - written, &count) }
                if code == CURLE_AGAIN { writeBlocked = true; break }
                guard code == CURLE_OK else {
                    firstFailure = "curl_easy_send: \(String(cString: curl_easy_strerror(code)))"
                    break loop
                }
                written += count
            }
            if written == output.count {
                output.removeAll(keepingCapacity: true)
                written = 0
            }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN) | (writeBlocked ? Int16(POLLOUT) : 0), revents: 0)
            guard poll(&descriptor, 1, 10_000) > 0 else {
                firstFailure = "no echo within 10 s"
                break loop
            }
            // Read until the socket is empty, or every message sent has its echo.
            while latencies.count + failures < sent {
                var count = 0
                let code = chunk.withUnsafeMutableBytes { curl_easy_recv(easy, $0.baseAddress!, $0.count, &count) }
                if code == CURLE_AGAIN { break }
                guard code == CURLE_OK, count > 0 else {
                    firstFailure = "the connection ended: \(String(cString: curl_easy_strerror(code)))"
                    break loop
                }
                input.append(contentsOf: chunk[0..<count])
                var consumed = 0
                input.withUnsafeBytes { bytes in
                    while let head = WebSocketFraming.head(UnsafeRawBufferPointer(rebasing: bytes[consumed...])),
                          bytes.count - consumed - head.headLength >= head.payloadLength {
                        let body = UnsafeRawBufferPointer(rebasing: bytes[consumed + head.headLength..<consumed + head.headLength + head.payloadLength])
                        consumed += head.headLength + head.payloadLength
                        let index = latencies.count + failures
                        if head.opcode == WebSocketFraming.binaryOpcode, head.maskKey == nil, body.count == payload.count,
                           payload.withUnsafeBytes({ memcmp($0.baseAddress!, body.baseAddress!, body.count) == 0 }) {
                            latencies.append(.nanoseconds(Int64(MonotonicTime.now - sendTimes[index])))
                        } else {
                            failures += 1
                            firstFailure = firstFailure ?? "an echo that is not the message sent (opcode \(head.opcode), \(head.payloadLength) bytes)"
                        }
                    }
                }
                input.removeFirst(consumed)
            }
        }
        let elapsed = Duration.nanoseconds(Int64(MonotonicTime.now - start))
        let usage = ProcessUsage.now - usageBefore
        failures = messages - latencies.count
        var measurement = Measurement(requests: messages, failures: failures, elapsed: elapsed, latencies: latencies.sorted())
        measurement.usage = usage
        measurement.firstFailure = failures > 0 ? firstFailure : nil
        return measurement
    }

    /// Connects `easy` to the server and runs the handshake; the socket, or nil.
    /// A multi and a connect-only easy handle to the echo server on `port`, and the socket once
    /// its handshake is done (nil if it failed); free them with ``disconnect(_:_:)``.
    static func connect(port: Int) -> (multi: UnsafeMutableRawPointer, easy: UnsafeMutableRawPointer, socket: curl_socket_t?) {
        _ = curl_global_init(Int(CURL_GLOBAL_ALL))
        let multi = curl_multi_init()!
        let easy = curl_easy_init()!
        return (multi, easy, open(multi, easy, port: port))
    }

    /// Frees what ``connect(port:)`` made.
    static func disconnect(_ multi: UnsafeMutableRawPointer, _ easy: UnsafeMutableRawPointer) {
        curl_multi_remove_handle(multi, easy)
        curl_easy_cleanup(easy)
        curl_multi_cleanup(multi)
    }

    private static func open(_ multi: UnsafeMutableRawPointer, _ easy: UnsafeMutableRawPointer, port: Int) -> curl_socket_t? {
        _ = "http://127.0.0.1:\(port)/".withCString { courier_easy_set_pointer(easy, CURLOPT_URL, $0) }
        _ = courier_easy_set_long(easy, CURLOPT_CONNECT_ONLY, 1)
        _ = courier_easy_set_long(easy, CURLOPT_NOSIGNAL, 1)
        guard curl_multi_add_handle(multi, easy) == CURLM_OK else { return nil }
        var connected = false
        for _ in 0..<1000 where !connected {
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            var remaining: Int32 = 0
            if let message = curl_multi_info_read(multi, &remaining), message.pointee.msg == CURLMSG_DONE {
                guard message.pointee.data.result == CURLE_OK else { return nil }
                connected = true
            } else {
                curl_multi_poll(multi, nil, 0, 100, nil)
            }
        }
        var socket: curl_socket_t = -1
        _ = courier_easy_get_socket(easy, CURLINFO_ACTIVESOCKET, &socket)
        guard connected, socket >= 0 else { return nil }
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let request = Array("GET /echo HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n".utf8)
        guard sendAll(request, easy: easy, socket: socket, waitMilliseconds: 1000) else { return nil }
        // The server sends nothing after its 101 before a frame arrives: the head is all there is.
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while WebSocketEchoServer.endOfHead(head) == nil {
            var count = 0
            let code = buffer.withUnsafeMutableBytes { curl_easy_recv(easy, $0.baseAddress!, $0.count, &count) }
            if code == CURLE_AGAIN {
                var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 10_000) > 0 else { return nil }
                continue
            }
            guard code == CURLE_OK, count > 0 else { return nil }
            head += buffer[0..<count]
        }
        let text = String(decoding: head, as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 101"), text.contains(WebSocketHandshake.accept(for: key)) else { return nil }
        return socket
    }

    /// Sends all of `bytes` on a connect-only handle, waiting in `poll` while the socket is full
    /// (this thread is the benchmark's own); false if libcurl fails or the socket stays full
    /// for `waitMilliseconds`.
    static func sendAll(_ bytes: [UInt8], easy: UnsafeMutableRawPointer, socket: curl_socket_t, waitMilliseconds: Int32) -> Bool {
        var written = 0
        while written < bytes.count {
            var count = 0
            let code = bytes.withUnsafeBytes { curl_easy_send(easy, $0.baseAddress! + written, $0.count - written, &count) }
            if code == CURLE_AGAIN {
                var descriptor = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
                // Not writable in time, or the socket failed: give up rather than spin.
                guard poll(&descriptor, 1, waitMilliseconds) > 0, descriptor.revents & Int16(POLLOUT) != 0 else { return false }
                continue
            }
            guard code == CURLE_OK else { return false }
            written += count
        }
        return true
    }
}
#endif
