import Foundation

/// A request body a transport takes without waiting on its thread: it answers what is there now,
/// or `later`, and calls the `wake` it was given once there is something (``BodyProducer``, an
/// async sequence's; ``ConcatenatedBody``, parts of which one is).
protocol PolledBody: AnyObject, Sendable {
    /// Up to `maxLength` bytes that are there now, the end, or `later` (then `wake` is called,
    /// once, when there is something). Throws the body's own error.
    func poll(maxLength: Int, wake: @escaping @Sendable () -> Void) throws -> BodyProducer.Poll
    /// The transport went away: whatever produces the body stops.
    func close()
}

extension PolledBody {
    /// A reader for a transport that reads on a thread of its own: it waits there while the
    /// body is behind, and closes the body when it is dropped.
    func blockingReader() -> HTTPBodyStream.Reader {
        let owner = PolledBodyOwner(self)
        return { maxLength in try owner.read(maxLength: maxLength) }
    }
}

/// Holds a polled body for a blocking reader, and closes it when the reader is dropped.
private final class PolledBodyOwner {
    let body: any PolledBody

    init(_ body: any PolledBody) {
        self.body = body
    }

    func read(maxLength: Int) throws -> Data {
        let ready = DispatchSemaphore(value: 0)
        while true {
            switch try body.poll(maxLength: maxLength, wake: { ready.signal() }) {
            case .bytes(let data): return data
            case .end: return Data()
            case .later: ready.wait()
            }
        }
    }

    deinit {
        body.close()
    }
}
