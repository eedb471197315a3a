import Foundation

/// The chunks of `chunks`, telling `asked` each time the next one is asked for (a produced
/// body's producer, reading on).
struct NotifyingChunks: AsyncSequence, Sendable {
    let chunks: AsyncStream<Data>
    let asked: AsyncStream<Void>.Continuation

    struct AsyncIterator: AsyncIteratorProtocol {
        var chunks: AsyncStream<Data>.AsyncIterator
        let asked: AsyncStream<Void>.Continuation

        mutating func next() async -> Data? {
            asked.yield()
            return await chunks.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(chunks: chunks.makeAsyncIterator(), asked: asked)
    }
}
