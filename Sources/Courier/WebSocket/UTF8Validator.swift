/// Checks UTF-8 as it arrives, a fragment at a time (a code point may be split between
/// fragments): Hoehrmann's DFA, which refuses overlong forms, surrogates and code points past
/// U+10FFFF at the first byte that makes them so.
struct UTF8Validator: Sendable {
    private var state: UInt8 = Self.accept

    private static let accept: UInt8 = 0
    private static let reject: UInt8 = 12

    /// Reads `bytes`; false once the text cannot be UTF-8 whatever follows.
    mutating func consume<Bytes: Sequence>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
        var state = self.state
        for byte in bytes {
            state = Self.transitions[Int(state) + Int(Self.classes[Int(byte)])]
            if state == Self.reject { break }
        }
        self.state = state
        return state != Self.reject
    }

    /// Whether the text read so far ends at the end of a code point.
    var isComplete: Bool { state == Self.accept }

    private static let classes: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 256)
        for byte in 0x80...0x8F { table[byte] = 1 }
        for byte in 0x90...0x9F { table[byte] = 9 }
        for byte in 0xA0...0xBF { table[byte] = 7 }
        table[0xC0] = 8; table[0xC1] = 8
        for byte in 0xC2...0xDF { table[byte] = 2 }
        table[0xE0] = 10
        for byte in 0xE1...0xEC { table[byte] = 3 }
        table[0xED] = 4
        table[0xEE] = 3; table[0xEF] = 3
        table[0xF0] = 11
        for byte in 0xF1...0xF3 { table[byte] = 6 }
        table[0xF4] = 5
        for byte in 0xF5...0xFF { table[byte] = 8 }
        return table
    }()

    private static let transitions: [UInt8] = [
        0, 12, 24, 36, 60, 96, 84, 12, 12, 12, 48, 72, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
        12, 0, 12, 12, 12, 12, 12, 0, 12, 0, 12, 12, 12, 24, 12, 12, 12, 12, 12, 24, 12, 24, 12, 12,
        12, 12, 12, 12, 12, 12, 12, 24, 12, 12, 12, 12, 12, 24, 12, 12, 12, 12, 12, 12, 12, 24, 12, 12,
        12, 12, 12, 12, 12, 12, 12, 36, 12, 36, 12, 12, 12, 36, 12, 12, 12, 12, 12, 36, 12, 36, 12, 12,
        12, 36, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
    ]
}
