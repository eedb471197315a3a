import Courier
import Foundation

/// A request body produced chunk by chunk as a test lets it: each time its reader asks for the
/// next chunk, the ask's number (1, 2, …) goes to `asked`; the first `free` chunks are given at
/// once, each later one only after a value arrives on `releases`. After the chunks it ends, or
/// throws `failure`.
struct GatedChunks: AsyncSequence, Sendable {
    let chunks: [Data]
    var free = 1
    var failure: NetworkError?
    let asked: AsyncStream<Int>.Continuation
    let releases: AsyncStream<Void>

    struct AsyncIterator: AsyncIteratorProtocol {
        let sequence: GatedChunks
        var index = 0
        var gate: AsyncStream<Void>.Iterator

        mutating func next() async throws -> Data? {
            sequence.asked.yield(index + 1)
            guard index < sequence.chunks.count else {
                if let failure = sequence.failure { throw failure }
                return nil
            }
            if index >= sequence.free { _ = await gate.next() }
            defer { index += 1 }
            return sequence.chunks[index]
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(sequence: self, gate: releases.makeAsyncIterator())
    }
}
