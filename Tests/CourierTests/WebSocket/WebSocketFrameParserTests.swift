import Foundation
import Testing
@testable import Courier

@Suite("WebSocketFrameParser")
struct WebSocketFrameParserTests {
    /// A server frame (unmasked) as bytes.
    static func frame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | rsv << 4 | opcode]
        if payload.count < 126 {
            bytes.append(UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            bytes += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            bytes.append(127)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: payload.count >> shift)) }
        }
        return bytes + payload
    }

    private func parse(_ bytes: [UInt8], limit: Int = 1 << 20) throws(WebSocketProtocolError) -> [WebSocketFrame] {
        var parser = WebSocketFrameParser(maxFramePayload: limit)
        bytes.withUnsafeBytes { parser.append($0) }
        var frames: [WebSocketFrame] = []
        while let frame = try parser.next() { frames.append(frame) }
        return frames
    }

    private func code(_ bytes: [UInt8], limit: Int = 1 << 20) -> WebSocketCloseCode? {
        do {
            _ = try parse(bytes, limit: limit)
            return nil
        } catch {
            return error.code
        }
    }

    @Test("frames of the three length forms, fed a byte at a time")
    func lengths() throws {
        let payloads = [[UInt8](repeating: 1, count: 5), [UInt8](repeating: 2, count: 300), [UInt8](repeating: 3, count: 70_000)]
        let bytes = payloads.flatMap { Self.frame(0x2, $0) }
        var parser = WebSocketFrameParser(maxFramePayload: 1 << 20)
        var frames: [WebSocketFrame] = []
        for byte in bytes {
            [byte].withUnsafeBytes { parser.append($0) }
            while let frame = try parser.next() { frames.append(frame) }
        }
        #expect(frames.map { [UInt8]($0.payload) } == payloads)
        #expect(frames.allSatisfy { $0.fin && $0.opcode == .binary })
    }

    @Test("what a client must refuse: 1002 and 1009")
    func refusals() {
        #expect(code(Self.frame(0x1, [0x61], rsv: 4)) == .protocolError)      // RSV1, no extension
        #expect(code(Self.frame(0x3, [])) == .protocolError)                  // reserved opcode
        #expect(code(Self.frame(0xB, [])) == .protocolError)                  // reserved control opcode
        #expect(code(Self.frame(0x9, [1], fin: false)) == .protocolError)     // fragmented ping
        #expect(code(Self.frame(0x9, [UInt8](repeating: 0, count: 126))) == .protocolError)
        #expect(code([0x81, 0x81, 1, 2, 3, 4, 0x60]) == .protocolError)       // masked by the server
        #expect(code([0x82, 127, 0x80, 0, 0, 0, 0, 0, 0, 0]) == .protocolError) // 64-bit length, top bit
        #expect(code(Self.frame(0x2, [UInt8](repeating: 0, count: 11)), limit: 10) == .messageTooBig)
        // Refused from the head alone: the 64 MiB never need to arrive.
        #expect(code([0x82, 127, 0, 0, 0, 0, 4, 0, 0, 0], limit: 1 << 20) == .messageTooBig)
    }

    @Test("masking round-trips, whatever the length")
    func masking() {
        for count in [0, 1, 7, 8, 9, 125, 126, 65_536] {
            let payload = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 * 7) })
            let encoded = WebSocketFrame(opcode: .binary, payload: payload).encoded(maskKey: 0xA1B2_C3D4)
            let headLength = count < 126 ? 2 : count <= 0xFFFF ? 4 : 10
            #expect(encoded[encoded.startIndex + 1] & 0x80 != 0)
            #expect(Array(encoded[(headLength)..<(headLength + 4)]) == [0xA1, 0xB2, 0xC3, 0xD4])
            let unmasked = encoded[(headLength + 4)...].enumerated().map { $0.element ^ [0xA1, 0xB2, 0xC3, 0xD4][$0.offset % 4] }
            #expect(unmasked == [UInt8](payload))
        }
    }
}
