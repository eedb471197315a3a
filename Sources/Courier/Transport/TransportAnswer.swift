import Foundation

/// The one answer a transport owes its caller for an exchange or a WebSocket handshake, kept
/// under its owner's lock: whichever answers first (the loop's thread, or a cancellation) wins,
/// and the caller is woken outside the lock.
///
/// The answer is read back under the lock it was recorded under, not handed over in the
/// continuation: that orders what the loop's thread built before answering (a streamed body's
/// source) before the caller reads it, as ThreadSanitizer sees it.
struct TransportAnswer {
    /// The caller, waiting to be woken once the answer is recorded.
    private var continuation: CheckedContinuation<Void, Never>?
    private(set) var isAnswered = false
    /// The answer until the caller takes it.
    private var result: Result<HTTPResponse, NetworkError>?

    /// Keeps the caller's continuation; `false` when the answer is already there (the caller
    /// must then be woken at once, outside the lock).
    mutating func wait(_ continuation: CheckedContinuation<Void, Never>) -> Bool {
        if !isAnswered { self.continuation = continuation }
        return !isAnswered
    }

    /// Records `result` unless there is an answer already; returns whether this recorded it,
    /// and the caller to wake (outside the lock).
    mutating func answer(_ result: Result<HTTPResponse, NetworkError>) -> (recorded: Bool, wake: CheckedContinuation<Void, Never>?) {
        guard !isAnswered else { return (false, nil) }
        isAnswered = true
        self.result = result
        defer { continuation = nil }
        return (true, continuation)
    }

    /// The answer, once; `cancelled` if there was none.
    mutating func take() -> Result<HTTPResponse, NetworkError> {
        defer { result = nil }
        return result ?? .failure(.cancelled)
    }
}

extension Locked where Value == TransportAnswer {
    /// Keeps the caller's continuation; returns `false` (having woken it) when the answer is
    /// already there, e.g. a cancellation before the transfer started.
    func start(_ continuation: CheckedContinuation<Void, Never>) -> Bool {
        if withLock({ $0.wait(continuation) }) { return true }
        continuation.resume()
        return false
    }

    /// Records `result` and wakes the caller unless there was an answer already; returns
    /// whether this call recorded it.
    @discardableResult
    func answer(_ result: Result<HTTPResponse, NetworkError>) -> Bool {
        let (recorded, caller) = withLock { $0.answer(result) }
        caller?.resume()
        return recorded
    }

    /// The answer, once; read under the lock it was recorded under.
    func take() -> Result<HTTPResponse, NetworkError> {
        withLock { $0.take() }
    }
}
