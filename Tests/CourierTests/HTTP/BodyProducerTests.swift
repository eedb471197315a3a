import Foundation
import Testing

@testable import Courier

/// A produced body's buffer: what the transport took is let go, though the producer keeps up.
@Suite struct BodyProducerTests {
    @Test("chunks the transport took are freed while the producer keeps the buffer from emptying")
    func takenChunksAreFreed() async throws {
        let freed = Locked(0)
        let block = 64 << 10
        let (chunks, producing) = AsyncStream.makeStream(of: Data.self)
        for _ in 0..<64 {
            let bytes = UnsafeMutableRawPointer.allocate(byteCount: block, alignment: 16)
            bytes.initializeMemory(as: UInt8.self, repeating: 7, count: block)
            producing.yield(Data(bytesNoCopy: bytes, count: block, deallocator: .custom { pointer, _ in
                pointer.deallocate()
                freed.withLock { $0 += 1 }
            }))
        }
        producing.finish()
        let (asked, asking) = AsyncStream.makeStream(of: Void.self)
        var askedFor = asked.makeAsyncIterator()
        let producer = BodyProducer(NotifyingChunks(chunks: chunks, asked: asking))
        defer { producer.close() }
        // The producer has pushed three blocks and asked for a fourth: none is taken yet.
        for _ in 0..<4 { _ = await askedFor.next() }
        for _ in 0..<40 {
            guard case .bytes(let chunk) = try producer.poll(maxLength: block, wake: {}), chunk.count == block else {
                Issue.record("the buffer emptied")
                return
            }
            // The producer asks for the next block once the one before is pushed: the buffer
            // never empties, as behind a transport slower than its producer.
            _ = await askedFor.next()
        }
        // Each taken block is dropped here; the buffer and the stream hold the others.
        #expect(freed.withLock { $0 } == 40)
    }
}
