#if canImport(Glibc)
import Courier
import Foundation
import Glibc

/// The loopback WebSocket echo server of the WebSocket rows: `courier-bench
/// --websocket-echo-server`, a process of its own (``WebSocketEchoProcess`` starts it), so its
/// CPU time is not counted in the client's. It prints `port N`, answers the RFC 6455 handshake
/// (no extension: nothing is compressed) and echoes every data frame unmasked, with its opcode
/// and FIN bit; pings get pongs, a close is echoed and ends the connection. A thread per
/// connection, blocking sockets. Started by the benchmark (its standard input a pipe), it exits
/// when that pipe closes; started by hand, when killed.
enum WebSocketEchoServer {
    static func run() -> Never {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { fail("echo server: socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 128) == 0 else { fail("echo server: bind/listen failed: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        // Unbuffered: the parent waits for this line.
        FileHandle.standardOutput.write(Data("port \(UInt16(bigEndian: address.sin_port))\n".utf8))
        var input = stat()
        if fstat(STDIN_FILENO, &input) == 0, input.st_mode & S_IFMT == S_IFIFO {
            // Started by the benchmark, which holds the pipe's other end.
            Thread.detachNewThread {
                var byte: UInt8 = 0
                while read(STDIN_FILENO, &byte, 1) > 0 {}
                exit(0)
            }
        }
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            var on: Int32 = 1
            setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            Thread.detachNewThread { serve(connection) }
        }
    }

    /// One connection: the handshake, then frames echoed until a close or the end of input.
    private static func serve(_ socket: Int32) {
        defer { close(socket) }
        var input: [UInt8] = []
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 256 * 1024)
        var headEnd: Int?
        while headEnd == nil {
            let count = read(socket, &chunk, chunk.count)
            guard count > 0 else { return }
            input += chunk[0..<count]
            headEnd = endOfHead(input)
            if headEnd == nil, input.count > 16 * 1024 { return }
        }
        let answer = handshakeAnswer(input[0..<headEnd!])
        guard writeAll(socket, answer.bytes), answer.upgraded else { return }
        input.removeFirst(headEnd!)
        while true {
            let closed = echo(&input, into: &output)
            if !output.isEmpty {
                guard writeAll(socket, output) else { return }
                output.removeAll(keepingCapacity: true)
            }
            if closed { return }
            let count = read(socket, &chunk, chunk.count)
            guard count > 0 else { return }
            input.append(contentsOf: chunk[0..<count])
        }
    }

    /// The answer to a request head: a 101 with `Sec-WebSocket-Accept` when it has a
    /// `Sec-WebSocket-Key`, else a 400.
    static func handshakeAnswer(_ head: ArraySlice<UInt8>) -> (bytes: [UInt8], upgraded: Bool) {
        let lines = String(decoding: head, as: UTF8.self).split(separator: "\r\n")
        let key = lines.dropFirst().lazy.compactMap { line -> Substring? in
            guard let colon = line.firstIndex(of: ":"),
                  line[..<colon].lowercased() == "sec-websocket-key" else { return nil }
            return line[line.index(after: colon)...]
        }.first?.trimmingCharacters(in: .whitespaces)
        guard let key, !key.isEmpty, lines.first?.hasPrefix("GET ") == true else {
            return (Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8), false)
        }
        let text = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(WebSocketHandshake.accept(for: key))\r\n\r\n"
        return (Array(text.utf8), true)
    }

    /// Answers every whole frame at the start of `input` (removing them) into `output`: data
    /// frames echoed unmasked, a ping with its pong, a close with the same close; whether a
    /// close came (the connection then ends). A partial frame is left for the next read.
    static func echo(_ input: inout [UInt8], into output: inout [UInt8]) -> Bool {
        var consumed = 0
        var closed = false
        input.withUnsafeMutableBytes { bytes in
            while !closed, let head = WebSocketFraming.head(UnsafeRawBufferPointer(rebasing: bytes[consumed...])),
                  bytes.count - consumed - head.headLength >= head.payloadLength {
                let start = consumed + head.headLength
                let payload = UnsafeMutableRawBufferPointer(rebasing: bytes[start..<start + head.payloadLength])
                if let key = head.maskKey { WebSocketFrame.mask(payload, key: key) }
                consumed = start + head.payloadLength
                switch head.opcode {
                case WebSocketFraming.pongOpcode: continue
                case WebSocketFraming.pingOpcode:
                    WebSocketFraming.appendHead(to: &output, opcode: WebSocketFraming.pongOpcode, length: payload.count, maskKey: nil)
                case WebSocketFraming.closeOpcode:
                    WebSocketFraming.appendHead(to: &output, opcode: WebSocketFraming.closeOpcode, length: payload.count, maskKey: nil)
                    closed = true
                default:
                    WebSocketFraming.appendHead(to: &output, opcode: head.opcode, length: payload.count, maskKey: nil, fin: head.fin)
                }
                output.append(contentsOf: payload)
            }
        }
        input.removeFirst(consumed)
        return closed
    }

    /// Where the head's empty line ends in `bytes`, if it arrived.
    static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count where bytes[index - 3] == 0x0D && bytes[index - 2] == 0x0A && bytes[index - 1] == 0x0D && bytes[index] == 0x0A {
            return index + 1
        }
        return nil
    }

    private static func writeAll(_ socket: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(socket, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }
}
#endif
