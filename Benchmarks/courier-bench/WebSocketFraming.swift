import Foundation

/// RFC 6455's framing as the echo server and the raw libcurl loop need it: the handshake's
/// accept value, a frame head, masking, and reading a head back.
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

    /// `Sec-WebSocket-Accept` for a `Sec-WebSocket-Key`: base64(SHA-1(key + GUID)).
    static func acceptValue(forKey key: String) -> String {
        Data(SHA1.hash(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
    }

    /// Appends a final frame's head: opcode, length, and the mask key when given.
    static func appendHead(to out: inout [UInt8], opcode: UInt8, length: Int, maskKey: UInt32?, fin: Bool = true) {
        out.append((fin ? 0x80 : 0) | opcode)
        let maskBit: UInt8 = maskKey == nil ? 0 : 0x80
        if length < 126 {
            out.append(maskBit | UInt8(length))
        } else if length <= 0xFFFF {
            out += [maskBit | 126, UInt8(length >> 8), UInt8(length & 0xFF)]
        } else {
            out.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: UInt64(length) >> UInt64(shift))) }
        }
        if let maskKey {
            for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: maskKey >> UInt32(shift))) }
        }
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

    /// XORs `bytes` with `key`'s big-endian bytes, repeated, eight bytes at a time (as a C
    /// client would): masks and unmasks alike.
    static func mask(_ bytes: UnsafeMutableRawBufferPointer, key: UInt32) {
        // The key's first byte lowest in memory order, on any host.
        let word = UInt64(key.byteSwapped)
        let wide = (word | word << 32).littleEndian
        var index = 0
        while index + 8 <= bytes.count {
            let value = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            bytes.storeBytes(of: value ^ wide, toByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < bytes.count {
            bytes[index] ^= UInt8(truncatingIfNeeded: key >> UInt32(24 - (index & 3) * 8))
            index += 1
        }
    }
}
