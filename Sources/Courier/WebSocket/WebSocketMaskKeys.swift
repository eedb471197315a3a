#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Mask keys for client frames (RFC 6455 §5.3), drawn from the system's CSPRNG in bulk: one
/// `getentropy` call fills the keys of 64 frames instead of one `getrandom` per frame. The keys
/// stay unpredictable (§10.3); only the number of system calls changes.
struct WebSocketMaskKeys {
    private static let capacity = 4096
    private var bytes: [UInt8] = []
    private var position = 0

    /// The next key.
    mutating func next() -> UInt32 {
        if position + 4 > bytes.count { refill() }
        let key = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: position, as: UInt32.self) }
        position += 4
        return key
    }

    private mutating func refill() {
        if bytes.count != Self.capacity { bytes = [UInt8](repeating: 0, count: Self.capacity) }
        bytes.withUnsafeMutableBytes { buffer in
            // `getentropy` gives at most 256 bytes a call (the kernel's `getrandom`).
            for offset in stride(from: 0, to: buffer.count, by: 256) {
                let chunk = UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<min(buffer.count, offset + 256)])
                if getentropy(chunk.baseAddress!, chunk.count) != 0 {
                    // No kernel CSPRNG to call (never on a supported system): the standard
                    // library's generator, which is also the system's.
                    var generator = SystemRandomNumberGenerator()
                    for index in chunk.indices { chunk[index] = UInt8(truncatingIfNeeded: generator.next()) }
                }
            }
        }
        position = 0
    }
}
