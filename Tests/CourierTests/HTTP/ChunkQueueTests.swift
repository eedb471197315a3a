import Foundation
import Testing

@testable import Courier

/// The queue behind both body buffers: order, splits, and a front that never empties.
@Suite struct ChunkQueueTests {
    @Test("chunks come out in order, a long one split at maxLength, with the bytes held counted")
    func orderAndSplits() {
        var queue = ChunkQueue()
        #expect(queue.isEmpty && queue.popFirst() == nil)
        queue.append(Data("hello".utf8))
        queue.append(Data("world".utf8))
        #expect(queue.byteCount == 10)
        #expect(queue.popFirst(maxLength: 3) == Data("hel".utf8))
        #expect(queue.byteCount == 7)
        #expect(queue.popFirst(maxLength: 3) == Data("lo".utf8))
        #expect(queue.popFirst() == Data("world".utf8))
        #expect(queue.isEmpty && queue.byteCount == 0 && queue.popFirst() == nil)
        queue.append(Data("again".utf8))
        queue.removeAll()
        #expect(queue.isEmpty && queue.byteCount == 0)
    }

    @Test("a queue whose writer keeps ahead of its reader for thousands of chunks keeps their order")
    func neverEmpty() {
        var queue = ChunkQueue()
        var written: UInt32 = 0
        var read: UInt32 = 0
        func next() -> Data { defer { written += 1 }; return withUnsafeBytes(of: written) { Data($0) } }
        for _ in 0..<3 { queue.append(next()) }
        for _ in 0..<5_000 {
            queue.append(next())
            let chunk = queue.popFirst()!
            #expect(chunk.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) } == read)
            read += 1
        }
        #expect(queue.byteCount == 3 * 4)
    }
}
