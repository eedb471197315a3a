import Foundation

/// The chunks a body's buffer holds, read from the front (``BodyProducer``,
/// `ResponseBodyBuffer`): a value kept under its owner's lock.
///
/// A slot lets go of its bytes when it is read, and read slots are dropped once they are most of
/// the array: a queue that never empties (its writer keeps ahead of its reader) holds neither
/// read bytes nor a slot per chunk it ever held.
struct ChunkQueue {
    private var chunks: [Data] = []
    /// The first unread slot.
    private var head = 0
    /// The bytes held unread.
    private(set) var byteCount = 0

    /// Read slots at the front past which (and past half the array) they are removed.
    private static let compactionThreshold = 64

    /// Whether no chunk waits to be read.
    var isEmpty: Bool { head == chunks.count }

    mutating func append(_ chunk: Data) {
        chunks.append(chunk)
        byteCount += chunk.count
    }

    /// The next chunk, or its first `maxLength` bytes (the rest stays first); `nil` when empty.
    mutating func popFirst(maxLength: Int = .max) -> Data? {
        guard head < chunks.count else { return nil }
        var chunk = chunks[head]
        if chunk.count > maxLength {
            chunks[head] = chunk.dropFirst(maxLength)
            chunk = chunk.prefix(maxLength)
        } else {
            chunks[head] = Data()
            head += 1
            if head == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= Self.compactionThreshold, head * 2 >= chunks.count {
                chunks.removeFirst(head)
                head = 0
            }
        }
        byteCount -= chunk.count
        return chunk
    }

    /// Drops every chunk.
    mutating func removeAll() {
        chunks = []
        head = 0
        byteCount = 0
    }
}
