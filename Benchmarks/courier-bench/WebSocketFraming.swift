import Courier
import Foundation

/// RFC 6455's framing as the echo server and the raw libcurl loop need it beside Courier's own
/// (`WebSocketFrame`, `WebSocketHandshake`): a head from a raw opcode, and reading a head back.
enum WebSocketFraming {
    /// A frame head read from the wire.
    struct Head: Equatable {
        var fin: Bool
        var opcode: UInt8
        /// The mask key when the frame is masked (client frames are).
        var maskKey: UInt32?
        var payloadLength: Int
        /// Bytes of the head itself, the mask key included.
        var headLength: Int
    }

    static let binaryOpcode: UInt8 = 0x2
    static let closeOpcode: UInt8 = 0x8
    static let pingOpcode: UInt8 = 0x9
    static let pongOpcode: UInt8 = 0xA

    /// Appends a frame head (Courier's own encoder): opcode, length, and the mask key when given.
    static func appendHead(to out: inout [UInt8], opcode: UInt8, length: Int, maskKey: UInt32?, fin: Bool = true) {
        WebSocketFrame.appendHeader(to: &out, fin: fin, reserved: 0, opcode: WebSocketOpcode(rawValue: opcode)!, length: length, maskKey: maskKey)
    }

    /// The head at the start of `bytes`; nil while it has not all arrived.
    static func head(_ bytes: UnsafeRawBufferPointer) -> Head? {
        guard bytes.count >= 2 else { return nil }
        let masked = bytes[1] & 0x80 != 0
        var length = Int(bytes[1] & 0x7F)
        var offset = 2
        if length == 126 {
            guard bytes.count >= 4 else { return nil }
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            offset = 4
        } else if length == 127 {
            guard bytes.count >= 10 else { return nil }
            var value: UInt64 = 0
            for index in 2..<10 { value = value << 8 | UInt64(bytes[index]) }
            guard value <= UInt64(Int32.max) else { return nil }
            length = Int(value)
            offset = 10
        }
        var key: UInt32?
        if masked {
            guard bytes.count >= offset + 4 else { return nil }
            key = (offset..<offset + 4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[$1]) }
            offset += 4
        }
        return Head(fin: bytes[0] & 0x80 != 0, opcode: bytes[0] & 0x0F, maskKey: key, payloadLength: length, headLength: offset)
    }
}
