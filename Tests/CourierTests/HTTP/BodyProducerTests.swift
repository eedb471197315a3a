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
        let producer = BodyProducer(chunks)
        defer { producer.close() }
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self)
        var woken = wakes.makeAsyncIterator()
        var taken = 0
        while taken < 40 {
            switch try producer.poll(maxLength: block, wake: { wake.yield() }) {
            case .bytes(let chunk):
                taken += chunk.count / block
                // A slow transport: the producer refills behind each take.
                for _ in 0..<20 { await Task.yield() }
            case .end: Issue.record("ended after \(taken) blocks"); return
            case .later: _ = await woken.next()
            }
        }
        // Each taken block is dropped here. Only the buffer, the stream, and the producer's
        // last chunk (its loop's variable, though the transport took it) hold others.
        #expect(freed.withLock { $0 } >= 39)
    }
}
