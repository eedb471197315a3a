/// The reply handle an "ask" message carries: the component answers through it exactly once.
///
/// Whatever happens to the component, the asker never hangs and is never resumed twice:
/// - `succeed`/`fail` resume the asker the first time and are ignored (returning `false`) after;
/// - a handle released without an answer (the component failed while holding it, or its
///   mailbox was closed with the message still queued) resumes the asker with
///   ``RuntimeError/replyDropped``, which ``Mailbox/ask(_:)`` turns into
///   ``RuntimeError/componentRestarted(_:)`` or ``RuntimeError/componentUnavailable(_:)``.
package final class Reply<Value: Sendable>: @unchecked Sendable {
    // Invariant: `continuation` is read and cleared only under `lock`; whoever clears it
    // resumes it, outside the lock, so it is resumed exactly once (which is what makes an
    // unsafe continuation safe here: the checked one's extra allocation buys nothing).
    private let lock = Lock()
    private var continuation: UnsafeContinuation<Value, any Error>?

    init(_ continuation: UnsafeContinuation<Value, any Error>) {
        self.continuation = continuation
    }

    /// Answers the asker with `value`. Returns `false` if the asker was already answered.
    @discardableResult
    package func succeed(_ value: Value) -> Bool {
        guard let continuation = take() else { return false }
        continuation.resume(returning: value)
        return true
    }

    /// Answers the asker with `error`. Returns `false` if the asker was already answered.
    @discardableResult
    package func fail(_ error: any Error) -> Bool {
        fail(error, beforeResuming: {})
    }

    /// Answers the asker with `error`, running `beforeResuming` once the answer is claimed but
    /// before the asker wakes: whatever it sends is then ordered before anything the asker
    /// sends next. Returns `false` (and skips `beforeResuming`) if the asker was already answered.
    @discardableResult
    func fail(_ error: any Error, beforeResuming: () -> Void) -> Bool {
        guard let continuation = take() else { return false }
        beforeResuming()
        continuation.resume(throwing: error)
        return true
    }

    /// Answers the asker with `result`. Returns `false` if the asker was already answered.
    @discardableResult
    package func resume(with result: Result<Value, any Error>) -> Bool {
        switch result {
        case .success(let value): succeed(value)
        case .failure(let error): fail(error)
        }
    }

    /// Whether the asker has been answered.
    package var isAnswered: Bool { lock.withLock { continuation == nil } }

    private func take() -> UnsafeContinuation<Value, any Error>? {
        lock.withLock {
            defer { continuation = nil }
            return continuation
        }
    }

    deinit {
        // No lock needed: deinit runs when nobody else holds a reference.
        continuation?.resume(throwing: RuntimeError.replyDropped)
    }
}
