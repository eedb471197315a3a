import Foundation

/// Bodies one after another (``HTTPBodyStream/concatenating(_:)``) when at least one of them is
/// an async sequence's: that one is polled, so a transport never waits on its thread for it;
/// every other one's reader is called as a transport calls a reader. Each part is begun when the
/// one before it has ended.
///
/// `@unchecked Sendable`: used by one transport thread at a time, as a reader is; `close()`
/// comes last, from whoever drops it.
final class ConcatenatedBody: PolledBody, @unchecked Sendable {
    private let parts: [HTTPBodyStream]
    private var index = 0
    private var reader: HTTPBodyStream.Reader?
    private var producer: (any PolledBody)?

    init(_ parts: [HTTPBodyStream]) {
        self.parts = parts
    }

    func poll(maxLength: Int, wake: @escaping @Sendable () -> Void) throws -> BodyProducer.Poll {
        while index < parts.count {
            let part = parts[index]
            if let makeProducer = part.makeProducer {
                let producer = try self.producer ?? makeProducer()
                self.producer = producer
                let answer = try producer.poll(maxLength: maxLength, wake: wake)
                if answer != .end { return answer }
                producer.close()
                self.producer = nil
            } else {
                let reader = try self.reader ?? part.makeReader()
                self.reader = reader
                let data = try reader(maxLength)
                if !data.isEmpty { return .bytes(data) }
                self.reader = nil
            }
            index += 1
        }
        return .end
    }

    func close() {
        producer?.close()
        producer = nil
        reader = nil
    }
}
