import Foundation

/// The WebSocket protocol of one connection as a value: bytes from the server in, actions out
/// (messages to deliver, frames to write, the end). No I/O, no clock: the I/O shell
/// (``WebSocketChannel``) performs what it returns, and tests drive it directly.
struct WebSocketStateMachine: Sendable {
    enum State: Equatable, Sendable {
        /// Messages flow both ways.
        case open
        /// Our close frame is out; the peer's is awaited (its messages still arrive).
        case closeSent
        /// Both close frames passed, or the connection failed: nothing more is read.
        case closed
    }

    /// What the shell does, in order.
    enum Action: Equatable, Sendable {
        /// A whole message for the reader.
        case deliver(WebSocketMessage)
        /// A frame to send (a pong, the close reply, the close that fails the connection).
        case write(WebSocketFrame)
        /// A pong arrived: the peer is alive.
        case pongReceived
        /// The close handshake is over (the peer's close frame, with its code and reason):
        /// end the connection once the writes are out.
        case closed(code: WebSocketCloseCode?, reason: String)
        /// The peer broke the protocol: the close frame saying why is the preceding `write`;
        /// end the connection once it is out.
        case failed(WebSocketProtocolError)
    }

    private(set) var state = State.open
    private var parser: WebSocketFrameParser
    let maxMessageSize: Int
    /// The message being assembled from fragments: its opcode, bytes and text check.
    private var fragmentOpcode: WebSocketOpcode?
    private var fragments = Data()
    private var utf8 = UTF8Validator()
    /// The negotiated `permessage-deflate`, and whether the message being read is compressed
    /// (RSV1 on its first frame).
    private let compression: PerMessageDeflate?
    private var compressed = false

    init(maxFrameSize: Int, maxMessageSize: Int, compression: PerMessageDeflate? = nil) {
        parser = WebSocketFrameParser(maxFramePayload: maxFrameSize)
        parser.allowedReserved = compression == nil ? 0 : 0b100
        self.maxMessageSize = maxMessageSize
        self.compression = compression
    }

    /// Reads `bytes` from the server; returns what to do.
    mutating func receive(_ bytes: UnsafeRawBufferPointer) -> [Action] {
        guard state != .closed else { return [] }
        var input = bytes
        var actions: [Action] = []
        while state != .closed {
            do {
                guard let frame = try parser.next(from: &input) else { break }
                try handle(frame, &actions)
            } catch {
                fail(error, &actions)
            }
        }
        return actions
    }

    mutating func receive(_ bytes: Data) -> [Action] {
        bytes.withUnsafeBytes { receive($0) }
    }

    /// Our close: the frame to send, or nil when a close was already sent (or the connection
    /// is over).
    mutating func close(code: WebSocketCloseCode, reason: String) -> WebSocketFrame? {
        guard state == .open else { return nil }
        state = .closeSent
        return Self.closeFrame(code: code, reason: reason)
    }

    /// The connection ended under the machine (the socket dropped, a timeout).
    mutating func abandon() {
        state = .closed
    }

    /// Whether messages may still be sent (no close sent yet).
    var canSend: Bool { state == .open }

    private mutating func handle(_ frame: WebSocketFrame, _ actions: inout [Action]) throws(WebSocketProtocolError) {
        switch frame.opcode {
        case .ping:
            if state == .open { actions.append(.write(WebSocketFrame(opcode: .pong, payload: frame.payload))) }
        case .pong:
            actions.append(.pongReceived)
        case .close:
            let (code, reason) = try Self.parseClose(frame.payload)
            if state == .open {
                // Echo the code (RFC 6455 §5.5.1); a close without one is answered without one.
                var reply = WebSocketFrame(opcode: .close)
                if let code { reply.payload = Self.closePayload(code: code, reason: "") }
                actions.append(.write(reply))
            }
            state = .closed
            actions.append(.closed(code: code, reason: reason))
        case .text, .binary:
            guard fragmentOpcode == nil else {
                throw WebSocketProtocolError(code: .protocolError, reason: "a new message began inside a fragmented one")
            }
            fragmentOpcode = frame.opcode
            utf8 = UTF8Validator()
            fragments = Data()
            compressed = frame.reserved & 0b100 != 0
            try append(frame, &actions)
        case .continuation:
            guard fragmentOpcode != nil else {
                throw WebSocketProtocolError(code: .protocolError, reason: "a continuation frame with no message to continue")
            }
            try append(frame, &actions)
        }
    }

    /// Adds a data frame's payload to the message; delivers it on its last frame.
    private mutating func append(_ frame: WebSocketFrame, _ actions: inout [Action]) throws(WebSocketProtocolError) {
        let isText = fragmentOpcode == .text
        let start = fragments.count
        if compressed, let compression {
            // Inflated frame by frame, within the limit: a small frame that inflates hugely is
            // stopped as it inflates.
            try compression.decompress(frame.payload, last: frame.fin, into: &fragments, limit: maxMessageSize)
        } else {
            guard fragments.count + frame.payload.count <= maxMessageSize else {
                throw WebSocketProtocolError(code: .messageTooBig, reason: "a message over the limit of \(maxMessageSize) bytes")
            }
            if fragments.isEmpty, frame.fin {
                fragments = frame.payload
            } else {
                fragments.append(frame.payload)
            }
        }
        // Checked fragment by fragment: invalid text fails before the rest of it arrives.
        if isText, !utf8.consume(fragments[(fragments.startIndex + start)...]) {
            throw WebSocketProtocolError(code: .invalidFramePayloadData, reason: "a text message that is not UTF-8")
        }
        guard frame.fin else { return }
        if isText, !utf8.isComplete {
            throw WebSocketProtocolError(code: .invalidFramePayloadData, reason: "a text message that ends inside a UTF-8 sequence")
        }
        let payload = fragments
        fragments = Data()
        fragmentOpcode = nil
        guard state != .closed else { return }
        actions.append(.deliver(isText ? .text(String(decoding: payload, as: UTF8.self)) : .binary(payload)))
    }

    private mutating func fail(_ error: WebSocketProtocolError, _ actions: inout [Action]) {
        if state == .open { actions.append(.write(Self.closeFrame(code: error.code, reason: error.reason))) }
        state = .closed
        actions.append(.failed(error))
    }

    /// A close frame's code and reason; throws 1002 for a payload of one byte or a code no
    /// endpoint may send, 1007 for a reason that is not UTF-8.
    static func parseClose(_ payload: Data) throws(WebSocketProtocolError) -> (WebSocketCloseCode?, String) {
        if payload.isEmpty { return (nil, "") }
        guard payload.count >= 2 else {
            throw WebSocketProtocolError(code: .protocolError, reason: "a close frame with a one-byte payload")
        }
        let bytes = [UInt8](payload)
        let code = WebSocketCloseCode(rawValue: UInt16(bytes[0]) << 8 | UInt16(bytes[1]))
        guard code.isSendable else {
            throw WebSocketProtocolError(code: .protocolError, reason: "a close frame with code \(code.rawValue), which no endpoint may send")
        }
        var check = UTF8Validator()
        guard check.consume(bytes[2...]), check.isComplete else {
            throw WebSocketProtocolError(code: .invalidFramePayloadData, reason: "a close reason that is not UTF-8")
        }
        return (code, String(decoding: bytes[2...], as: UTF8.self))
    }

    /// A close frame: the code, then the reason cut to what fits in 125 bytes (at a character).
    static func closeFrame(code: WebSocketCloseCode, reason: String) -> WebSocketFrame {
        WebSocketFrame(opcode: .close, payload: closePayload(code: code, reason: reason))
    }

    private static func closePayload(code: WebSocketCloseCode, reason: String) -> Data {
        var payload = Data([UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)])
        var kept = Substring(reason)
        while kept.utf8.count > 123 { kept = kept.dropLast() }
        payload.append(contentsOf: kept.utf8)
        return payload
    }
}
