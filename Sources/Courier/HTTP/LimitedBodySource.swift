import Foundation

/// A response body's source that ends the body with ``NetworkError/responseTooLarge(limit:)``
/// (and closes the exchange) once more than `limit` bytes were read: a limit below the one
/// the transport applied.
final class LimitedBodySource: ResponseBodySource {
    /// The limited body's owner: held, so the exchange stays open while this source is.
    private let owner: ResponseBytes.Owner
    private let limit: Int
    private let read = Locked(0)
    private var source: any ResponseBodySource { owner.source }

    init(_ bytes: ResponseBytes, limit: Int) {
        owner = bytes.owner
        self.limit = limit
    }

    func next() async throws(NetworkError) -> Data? {
        guard let chunk = try await source.next() else { return nil }
        guard read.withLock({ read in read += chunk.count; return read }) <= limit else {
            source.cancel()
            throw .responseTooLarge(limit: limit)
        }
        return chunk
    }

    func cancel() { source.cancel() }

    var maxBufferedBytes: Int { source.maxBufferedBytes }
}
