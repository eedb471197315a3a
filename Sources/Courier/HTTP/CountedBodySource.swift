import Foundation

/// A response body's source that tells a ``ProgressReporter`` the bytes its reader takes.
final class CountedBodySource: ResponseBodySource {
    /// The counted body's owner: held, so the exchange stays open while this source is.
    private let owner: ResponseBytes.Owner
    private let reporter: ProgressReporter
    private var source: any ResponseBodySource { owner.source }

    init(_ bytes: ResponseBytes, reporter: ProgressReporter) {
        owner = bytes.owner
        self.reporter = reporter
    }

    func next() async throws(NetworkError) -> Data? {
        guard let chunk = try await source.next() else {
            reporter.finish()
            return nil
        }
        reporter.advance(by: chunk.count)
        return chunk
    }

    func cancel() { source.cancel() }

    var maxBufferedBytes: Int { source.maxBufferedBytes }
}
