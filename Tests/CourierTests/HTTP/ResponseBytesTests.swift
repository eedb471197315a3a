import Foundation
import Testing

@testable import Courier

/// Reading a body: cancellation stops the reader even when chunks wait to be read.
@Suite struct ResponseBytesTests {
    @Test("a cancelled reader's next read throws cancelled, though the whole body waits in memory")
    func cancelledWithChunksWaiting() async {
        let bytes = ResponseBytes(Data("whole".utf8))
        let result = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await bytes.collect(upTo: 100)
        }.result
        guard case .failure(let error) = result, case .cancelled? = error as? NetworkError else { Issue.record("got \(result)"); return }
    }

    @Test("a transport's buffer: chunks received before the reader was cancelled are not read, and the transfer is stopped")
    func cancelledWithTransportChunksWaiting() async {
        let stopped = Locked(0)
        let buffer = ResponseBodyBuffer(resume: {}, cancelTransfer: { stopped.withLock { $0 += 1 } })
        let chunk = Data(repeating: 7, count: 1000)
        chunk.withUnsafeBytes { _ = buffer.offer($0) }
        chunk.withUnsafeBytes { _ = buffer.offer($0) }
        let bytes = ResponseBytes(source: buffer)
        let read = Locked<[Int]>([])
        let result = await Task {
            var iterator = bytes.makeAsyncIterator()
            while let chunk = try await iterator.next() {
                read.withLock { $0.append(chunk.count) }
                withUnsafeCurrentTask { $0?.cancel() }
            }
        }.result
        guard case .failure(let error) = result, case .cancelled? = error as? NetworkError else { Issue.record("got \(result)"); return }
        #expect(read.withLock { $0 } == [1000])
        #expect(stopped.withLock { $0 } == 1)
    }

    @Test("a reader not cancelled reads every chunk, then the end")
    func readsToTheEnd() async throws {
        let buffer = ResponseBodyBuffer(resume: {}, cancelTransfer: {})
        Data("ab".utf8).withUnsafeBytes { _ = buffer.offer($0) }
        Data("cd".utf8).withUnsafeBytes { _ = buffer.offer($0) }
        buffer.finish(nil)
        let data = try await ResponseBytes(source: buffer).collect(upTo: 10)
        #expect(data == Data("abcd".utf8))
    }
}
