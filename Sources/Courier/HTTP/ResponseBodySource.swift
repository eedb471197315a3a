import Foundation

/// Where a ``ResponseBytes`` sequence takes its chunks from: a transport's streamed body, or a
/// body already received whole.
///
/// Read by one consumer at a time (a sequence's iterator); ``cancel()`` may come from any thread.
protocol ResponseBodySource: AnyObject, Sendable {
    /// The next chunk; `nil` at the end of the body. Throws the error that ended the body early,
    /// and ``NetworkError/cancelled`` once the reading task is cancelled, though chunks wait.
    func next() async throws(NetworkError) -> Data?
    /// Stops receiving: the transport closes the exchange; a waiting ``next()`` throws
    /// ``NetworkError/cancelled``. Nothing once the body has ended.
    func cancel()
    /// The most bytes this source ever held received but not yet read (tests bound it).
    var maxBufferedBytes: Int { get }
}
