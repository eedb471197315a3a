import Foundation
import Testing

@testable import Courier

@Suite struct HTTPBodyStreamTests {
    /// Everything a reader of `stream` gives, asked `maxLength` bytes at a time.
    static func readAll(_ stream: HTTPBodyStream, maxLength: Int) throws -> (Data, reads: Int) {
        let reader = try stream.makeReader()
        var body = Data()
        var reads = 0
        while true {
            let chunk = try reader(maxLength)
            reads += 1
            if chunk.isEmpty { return (body, reads) }
            #expect(chunk.count <= maxLength)
            body.append(chunk)
        }
    }

    /// ``readAll(_:maxLength:)`` on a Dispatch thread: a produced body's reader waits for its
    /// producer, a task, which a waiting thread of the cooperative pool could starve.
    static func readAllOffThePool(_ stream: HTTPBodyStream, maxLength: Int) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try readAll(stream, maxLength: maxLength).0 })
            }
        }
    }

    @Test("concatenating: the streams' bytes in order, empty ones skipped, length the sum")
    func concatenating() throws {
        let stream = HTTPBodyStream.concatenating([.data(Data("ab".utf8)), .data(Data()), .data(Data("cdefg".utf8))])
        #expect(stream.length == 7)
        let (body, _) = try Self.readAll(stream, maxLength: 3)
        #expect(String(decoding: body, as: UTF8.self) == "abcdefg")
        // Each reader starts from the first byte again (a resend).
        #expect(try Self.readAll(stream, maxLength: 100).0 == body)
        #expect(HTTPBodyStream.concatenating([]).length == 0)
        #expect(try Self.readAll(.concatenating([]), maxLength: 10).0.isEmpty)
    }

    @Test("concatenating: one stream of unknown length makes the whole length unknown")
    func unknownLength() throws {
        let unknown = HTTPBodyStream(length: nil) {
            var sent = false
            return { _ in defer { sent = true }; return sent ? Data() : Data("x".utf8) }
        }
        let stream = HTTPBodyStream.concatenating([.data(Data("a".utf8)), unknown, .data(Data("b".utf8))])
        #expect(stream.length == nil)
        #expect(String(decoding: try Self.readAll(stream, maxLength: 8).0, as: UTF8.self) == "axb")
    }

    @Test("concatenating: a stream's reader is made only when the one before it has ended")
    func readersAreMadeLazily() throws {
        let made = Locked(0)
        let counted = HTTPBodyStream(length: 1) {
            made.withLock { $0 += 1 }
            return try HTTPBodyStream.data(Data("z".utf8)).makeReader()
        }
        let stream = HTTPBodyStream.concatenating([.data(Data("ab".utf8)), counted])
        let reader = try stream.makeReader()
        #expect(try reader(1) == Data("a".utf8))
        #expect(made.withLock { $0 } == 0)
        #expect(try reader(1) == Data("b".utf8))
        #expect(try reader(1) == Data("z".utf8))
        #expect(made.withLock { $0 } == 1)
        #expect(try reader(1).isEmpty)
    }

    @Test("a produced body is iterated once unless it is reopenable; a reopenable one starts again for each reader")
    func producedOnceOrAgain() async throws {
        let parts = [Data("ab".utf8), Data("cde".utf8)]
        let once = HTTPBodyStream.chunks(AsyncStream { continuation in
            for part in parts { continuation.yield(part) }
            continuation.finish()
        }, length: 5)
        #expect(!once.isReopenable)
        #expect(String(decoding: try await Self.readAllOffThePool(once, maxLength: 2), as: UTF8.self) == "abcde")
        #expect(throws: HTTPBodyStream.AlreadyRead.self) { _ = try once.makeReader() }

        let again = HTTPBodyStream.chunks(ProducedParts(parts: parts), length: nil, reopenable: true)
        #expect(again.isReopenable)
        #expect(String(decoding: try await Self.readAllOffThePool(again, maxLength: 100), as: UTF8.self) == "abcde")
        #expect(String(decoding: try await Self.readAllOffThePool(again, maxLength: 1), as: UTF8.self) == "abcde")
    }

    @Test("a produced body reports the bytes taken from it, alone and as a part, up to its end")
    func producedBodyReportsProgress() async throws {
        for asAPart in [false, true] {
            let produced = HTTPBodyStream.chunks(ProducedParts(parts: [Data("ab".utf8), Data("cde".utf8)]), length: 5, reopenable: true)
            let body = asAPart ? HTTPBodyStream.concatenating([produced, .data(Data("f".utf8))]) : produced
            let reports = Locked<[Int64]>([])
            let reporting = body.reportingProgress(to: ProgressReporter(total: Int64(body.length ?? 0), interval: .zero) { progress in
                reports.withLock { $0.append(progress.completedBytes) }
            })
            #expect(try await Self.readAllOffThePool(reporting, maxLength: 2).count == (asAPart ? 6 : 5))
            #expect(reports.withLock { $0.last } == (asAPart ? 6 : 5))
        }
    }

    @Test("polling a produced body answers later while the producer is behind, and wakes the poller once bytes or the end arrive")
    func producedBodyWakesItsPoller() async throws {
        let (chunks, producer) = AsyncStream.makeStream(of: Data.self)
        let body = try #require(HTTPBodyStream.chunks(chunks, length: nil).makeProducer)
        let produced = try body()
        defer { produced.close() }
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self)
        var woken = wakes.makeAsyncIterator()
        #expect(try produced.poll(maxLength: 10, wake: { wake.yield() }) == .later)
        producer.yield(Data("hello".utf8))
        _ = await woken.next()
        #expect(try produced.poll(maxLength: 3, wake: { wake.yield() }) == .bytes(Data("hel".utf8)))
        #expect(try produced.poll(maxLength: 3, wake: { wake.yield() }) == .bytes(Data("lo".utf8)))
        #expect(try produced.poll(maxLength: 3, wake: { wake.yield() }) == .later)
        producer.finish()
        _ = await woken.next()
        #expect(try produced.poll(maxLength: 3, wake: { wake.yield() }) == .end)
    }
}

/// An async sequence of `parts` that can be iterated again.
private struct ProducedParts: AsyncSequence, Sendable {
    let parts: [Data]

    struct AsyncIterator: AsyncIteratorProtocol {
        var rest: ArraySlice<Data>
        mutating func next() async -> Data? { rest.popFirst() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(rest: parts[...]) }
}
