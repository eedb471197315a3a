import Foundation

/// Cuts a server's byte stream into frames (RFC 6455 §5.2), checking each head before its
/// payload arrives: server frames are never masked, reserved bits only for a negotiated
/// extension, only known opcodes, control frames whole and at most 125 bytes, no frame over
/// the limit.
struct WebSocketFrameParser: Sendable {
    /// The largest payload accepted (1009 beyond it).
    let maxFramePayload: Int
    /// The reserved bits a negotiated extension allows (RSV1 with permessage-deflate).
    var allowedReserved: UInt8 = 0
    private var buffer: [UInt8] = []
    private var start = 0

    init(maxFramePayload: Int) {
        self.maxFramePayload = maxFramePayload
    }

    /// Bytes held, not yet a whole frame.
    var bufferedCount: Int { buffer.count - start }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
    }

    mutating func append(_ bytes: Data) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// The next whole frame, nil until its bytes have all arrived.
    mutating func next() throws(WebSocketProtocolError) -> WebSocketFrame? {
        let parsed = buffer.withUnsafeBytes { bytes in
            Result { () throws(WebSocketProtocolError) in try frame(in: UnsafeRawBufferPointer(rebasing: bytes[start...])) }
        }
        guard let (frame, used) = try parsed.get() else { return nil }
        start += used
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
            start = 0
        }
        return frame
    }

    /// The next whole frame from `input` when nothing is held: read where it lies, so a frame
    /// that arrived whole is copied once (into its payload). An unfinished frame's bytes are
    /// kept and `input` emptied; with bytes held, `input` is appended and read after them.
    mutating func next(from input: inout UnsafeRawBufferPointer) throws(WebSocketProtocolError) -> WebSocketFrame? {
        guard bufferedCount == 0 else {
            if !input.isEmpty {
                append(input)
                input = UnsafeRawBufferPointer(start: nil, count: 0)
            }
            return try next()
        }
        guard let (frame, used) = try frame(in: input) else {
            if !input.isEmpty { append(input) }
            input = UnsafeRawBufferPointer(start: nil, count: 0)
            return nil
        }
        input = UnsafeRawBufferPointer(rebasing: input[used...])
        return frame
    }

    /// The frame at the start of `bytes` and how many bytes it took; nil if it is not all
    /// there.
    private func frame(in bytes: UnsafeRawBufferPointer) throws(WebSocketProtocolError) -> (WebSocketFrame, Int)? {
        let available = bytes.count
        guard available >= 2 else { return nil }
        let first = bytes[0], second = bytes[1]
        let fin = first & 0x80 != 0
        let reserved = (first >> 4) & 0x7
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw WebSocketProtocolError(code: .protocolError, reason: "unknown opcode \(first & 0x0F)")
        }
        if reserved & ~allowedReserved != 0 || (reserved != 0 && opcode.isControl) || (reserved != 0 && opcode == .continuation) {
            throw WebSocketProtocolError(code: .protocolError, reason: "reserved bits set without an extension that defines them")
        }
        guard second & 0x80 == 0 else {
            throw WebSocketProtocolError(code: .protocolError, reason: "the server masked a frame")
        }
        var length = Int(second & 0x7F)
        var headerLength = 2
        if length == 126 {
            guard available >= 4 else { return nil }
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            headerLength = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            var value: UInt64 = 0
            for index in 2..<10 { value = value << 8 | UInt64(bytes[index]) }
            guard value >> 63 == 0 else {
                throw WebSocketProtocolError(code: .protocolError, reason: "a frame length with its most significant bit set")
            }
            guard value <= UInt64(maxFramePayload) else {
                throw WebSocketProtocolError(code: .messageTooBig, reason: "a frame of \(value) bytes, over the limit of \(maxFramePayload)")
            }
            length = Int(value)
            headerLength = 10
        }
        if opcode.isControl {
            guard fin else { throw WebSocketProtocolError(code: .protocolError, reason: "a fragmented control frame") }
            guard length <= 125 else {
                throw WebSocketProtocolError(code: .protocolError, reason: "a control frame with \(length) bytes of payload (at most 125)")
            }
        }
        guard length <= maxFramePayload else {
            throw WebSocketProtocolError(code: .messageTooBig, reason: "a frame of \(length) bytes, over the limit of \(maxFramePayload)")
        }
        guard available >= headerLength + length else { return nil }
        let payload = length == 0 ? Data() : Data(bytes: bytes.baseAddress! + headerLength, count: length)
        return (WebSocketFrame(fin: fin, reserved: reserved, opcode: opcode, payload: payload), headerLength + length)
    }
}
