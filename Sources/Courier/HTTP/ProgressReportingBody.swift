/// A polled body that tells `reporter` of every byte the transport takes, and of the end: what
/// ``HTTPBodyStream`` makes of a polled body that reports progress, as it wraps a reader.
final class ProgressReportingBody: PolledBody {
    private let body: any PolledBody
    private let reporter: ProgressReporter

    init(_ body: any PolledBody, reporter: ProgressReporter) {
        self.body = body
        self.reporter = reporter
    }

    func poll(maxLength: Int, wake: @escaping @Sendable () -> Void) throws -> BodyProducer.Poll {
        let poll = try body.poll(maxLength: maxLength, wake: wake)
        switch poll {
        case .bytes(let data): reporter.advance(by: data.count)
        case .end: reporter.finish()
        case .later: break
        }
        return poll
    }

    func close() {
        body.close()
    }
}
