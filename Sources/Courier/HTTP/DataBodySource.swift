import Foundation

/// A body received whole, handed out as one chunk (transports that cannot stream, and
/// responses an interceptor or the cache made).
final class DataBodySource: ResponseBodySource {
    private let remaining: Locked<Data?>

    init(_ data: Data) {
        remaining = Locked(data.isEmpty ? nil : data)
    }

    func next() async throws(NetworkError) -> Data? {
        if Task.isCancelled { throw .cancelled }
        return remaining.withLock { data in
            defer { data = nil }
            return data
        }
    }

    func cancel() {
        remaining.withLock { $0 = nil }
    }

    var maxBufferedBytes: Int { 0 }
}
