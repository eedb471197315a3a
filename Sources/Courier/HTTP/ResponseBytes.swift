import Foundation

/// A response's body, read as it arrives: an `AsyncSequence` of `Data` chunks.
///
/// ```swift
/// let (response, bytes) = try await client.bytes(for: Endpoint<Data>(path: "export"))
/// for try await chunk in bytes { consume(chunk) }
/// ```
///
/// - **Backpressure**: the transport holds only a bounded number of received bytes; while the
///   consumer does not read, the connection is not read either (the server's sends block).
/// - **Cancellation**: cancelling the reading task, calling ``cancel()``, or dropping the
///   sequence and its iterators before the end closes the exchange (the server sees the
///   connection close). A cancelled task's next read throws, though chunks were received.
/// - **Errors**: a body that ends early throws the transport's ``NetworkError``
///   (`malformedResponse` for a truncated or reset body, `responseTooLarge` past the
///   stream's limit, `timeout` when no byte arrived within the stall timeout).
///
/// Read it once: a second iterator continues where the first stopped.
public struct ResponseBytes: AsyncSequence, Sendable {
    /// A chunk of the body, as the transport received it.
    public typealias Element = Data
    /// What ends the body early.
    public typealias Failure = NetworkError

    /// Keeps the exchange open while a sequence or an iterator is held; its `deinit` closes it.
    final class Owner: Sendable {
        let source: any ResponseBodySource
        init(_ source: any ResponseBodySource) { self.source = source }
        deinit { source.cancel() }
    }

    let owner: Owner

    /// A body received whole, as one chunk (none when it is empty): what a transport that
    /// cannot stream returns.
    public init(_ data: Data) {
        owner = Owner(DataBodySource(data))
    }

    init(source: any ResponseBodySource) {
        owner = Owner(source)
    }

    /// An iterator over the chunks.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(owner: owner)
    }

    /// Reads the chunks of a ``ResponseBytes``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let owner: Owner

        /// The next chunk, as it arrives; `nil` at the end of the body.
        public mutating func next() async throws(NetworkError) -> Data? {
            try await owner.source.next()
        }
    }

    /// Stops reading and closes the exchange; the sequence then throws
    /// ``NetworkError/cancelled``. Nothing if the body already ended.
    public func cancel() {
        owner.source.cancel()
    }

    /// Reads the rest of the body into memory, at most `limit` bytes; closes the exchange and
    /// throws ``NetworkError/responseTooLarge(limit:)`` past that.
    public func collect(upTo limit: Int) async throws(NetworkError) -> Data {
        var data = Data()
        var iterator = makeAsyncIterator()
        while let chunk = try await iterator.next() {
            guard chunk.count <= limit - data.count else {
                cancel()
                throw .responseTooLarge(limit: limit)
            }
            data.append(chunk)
        }
        return data
    }

    /// The same body, telling `reporter` the bytes as they are read: read the result, not
    /// this sequence.
    func reportingProgress(to reporter: ProgressReporter) -> ResponseBytes {
        ResponseBytes(source: CountedBodySource(self, reporter: reporter))
    }

    /// The same body, ending with ``NetworkError/responseTooLarge(limit:)`` past `limit` bytes:
    /// read the result, not this sequence.
    func limited(to limit: Int) -> ResponseBytes {
        ResponseBytes(source: LimitedBodySource(self, limit: limit))
    }

    /// The most bytes the transport held received but not yet read, for this body.
    var maxBufferedBytes: Int { owner.source.maxBufferedBytes }
}
