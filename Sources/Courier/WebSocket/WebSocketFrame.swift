import Foundation

/// One WebSocket frame (RFC 6455 §5.2), its payload unmasked.
package struct WebSocketFrame: Sendable, Equatable {
    /// Whether this is the last frame of its message.
    var fin: Bool
    /// RSV1 (per-message compression, RFC 7692), RSV2, RSV3 as bits 2, 1, 0.
    var reserved: UInt8
    var opcode: WebSocketOpcode
    var payload: Data

    init(fin: Bool = true, reserved: UInt8 = 0, opcode: WebSocketOpcode, payload: Data = Data()) {
        self.fin = fin
        self.reserved = reserved
        self.opcode = opcode
        self.payload = payload
    }

    /// The frame as a client sends it: masked with `maskKey` (RFC 6455 §5.3).
    func encoded(maskKey: UInt32) -> Data {
        var out = Data(capacity: payload.count + 14)
        Self.appendHeader(to: &out, fin: fin, reserved: reserved, opcode: opcode, length: payload.count, maskKey: maskKey)
        let start = out.count
        out.append(payload)
        out.withUnsafeMutableBytes { bytes in
            Self.mask(UnsafeMutableRawBufferPointer(rebasing: bytes[start...]), key: maskKey)
        }
        return out
    }

    /// Appends a frame head: flags, length, and (when given) the mask key.
    package static func appendHeader<Bytes: RangeReplaceableCollection<UInt8>>(to out: inout Bytes, fin: Bool, reserved: UInt8, opcode: WebSocketOpcode, length: Int, maskKey: UInt32?) {
        out.append((fin ? 0x80 : 0) | (reserved & 0x7) << 4 | opcode.rawValue)
        let maskBit: UInt8 = maskKey == nil ? 0 : 0x80
        if length < 126 {
            out.append(maskBit | UInt8(length))
        } else if length <= 0xFFFF {
            out.append(maskBit | 126)
            out.append(UInt8(length >> 8))
            out.append(UInt8(length & 0xFF))
        } else {
            out.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: UInt64(length) >> UInt64(shift))) }
        }
        if let maskKey {
            for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: maskKey >> UInt32(shift))) }
        }
    }

    /// XORs `bytes` with `key` (its big-endian bytes, repeated): masks and unmasks alike.
    package static func mask(_ bytes: UnsafeMutableRawBufferPointer, key: UInt32) {
        let keyBytes = (UInt8(truncatingIfNeeded: key >> 24), UInt8(truncatingIfNeeded: key >> 16),
                        UInt8(truncatingIfNeeded: key >> 8), UInt8(truncatingIfNeeded: key))
        // Eight bytes at a time: a 16 MiB message is masked in one pass of words.
        let word = UInt64(keyBytes.0) | UInt64(keyBytes.1) << 8 | UInt64(keyBytes.2) << 16 | UInt64(keyBytes.3) << 24
        let wide = word | word << 32
        var index = 0
        let count = bytes.count
        while index + 8 <= count {
            let value = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            bytes.storeBytes(of: value ^ wide.littleEndian, toByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < count {
            let k: UInt8
            switch index & 3 {
            case 0: k = keyBytes.0
            case 1: k = keyBytes.1
            case 2: k = keyBytes.2
            default: k = keyBytes.3
            }
            bytes[index] ^= k
            index += 1
        }
    }
}
