/// The reply handle an "ask" message carries: the component answers through it exactly once.
///
/// Whatever happens to the component, the asker never hangs and is never resumed twice:
/// - `succeed`/`fail` resume the asker the first time and are ignored (returning `false`) after;
/// - a handle released without an answer (the component failed while holding it, or its
///   mailbox was closed with the message still queued) resumes the asker with
///   ``RuntimeError/replyDropped``, which ``Mailbox/ask(_:)`` turns into
///   ``RuntimeError/componentRestarted(_:)`` or ``RuntimeError/componentUnavailable(_:)``.
package final class Reply<Value: Sendable>: @unchecked Sendable {
    // Invariant: `answered` is read and written only under the slot's lock; the lets never
    // change.
    /// Who waits for the answer: a suspended task (an ask), or a function called with it (a
    /// component that asked another and takes the answer as a message of its own, without a
    /// task waiting in between).
    enum Asker: Sendable {
        case task(UnsafeContinuation<Value, any Error>)
        case callback(@Sendable (consuming Result<Value, any Error>) -> Void)

        func resume(with result: consuming Result<Value, any Error>) {
            switch self {
            case .task(let continuation): continuation.resume(with: result)
            case .callback(let answer): answer(result)
            }
        }

        /// The common case without building a `Result` for a waiting task.
        func succeed(_ value: consuming Value) {
            switch self {
            case .task(let continuation): continuation.resume(returning: value)
            case .callback(let answer): answer(.success(value))
            }
        }
    }

    /// Where the asker waits. Invariant: the asker is taken (and the slot emptied) only under
    /// the slot's lock, and whoever takes it resumes it, outside the lock, so it is resumed
    /// exactly once (which is what makes an unsafe continuation safe here: the checked one's
    /// extra allocation buys nothing). The asker may share the slot (a cancellable ask answers
    /// through it when its task is cancelled) without keeping this handle alive.
    typealias Slot = Locked<Asker?>

    private let slot: Slot
    /// Whether this handle answered, or tried to (its asker is answered either way): `deinit`
    /// reads it under the slot's lock, through the lock's class, which needs no run-time look-up
    /// of a type built from `Value` (a generic class's `deinit` runs unspecialised, and `take`
    /// there looked up `Asker?` and `Result` on every request).
    private var answered = false

    /// A handle on the slot an asker waits in (the asker holds the slot, never the handle, so a
    /// component dropping the handle still answers it).
    init(slot: Slot) {
        self.slot = slot
    }

    /// A handle whose answer is passed to `answer`, exactly once (``RuntimeError/replyDropped``
    /// if the handle is released unanswered).
    init(answer: @escaping @Sendable (consuming Result<Value, any Error>) -> Void) {
        slot = Slot(.callback(answer))
    }

    /// Answers the asker with `value`. Returns `false` if the asker was already answered.
    /// (`consuming`: the value is handed on, not copied.)
    @discardableResult
    package func succeed(_ value: consuming Value) -> Bool {
        guard let asker = take() else { return false }
        asker.succeed(value)
        return true
    }

    /// Answers the asker with `error`. Returns `false` if the asker was already answered.
    @discardableResult
    package func fail(_ error: any Error) -> Bool {
        guard let asker = take() else { return false }
        asker.resume(with: .failure(error))
        return true
    }

    /// Answers the asker with `result`. Returns `false` if the asker was already answered.
    @discardableResult
    package func resume<Failure: Error>(with result: consuming Result<Value, Failure>) -> Bool {
        switch consume result {
        case .success(let value): succeed(value)
        case .failure(let error): fail(error)
        }
    }

    /// Whether the asker has been answered.
    package var isAnswered: Bool { slot.withLock { $0 == nil } }

    /// Answers the asker waiting in `slot` with `error`, running `beforeResuming` once the answer
    /// is claimed but before the asker wakes: whatever it sends is then ordered before anything
    /// the asker sends next. Returns `false` (and skips `beforeResuming`) if it was answered.
    @discardableResult
    static func fail(_ slot: Slot, _ error: any Error, beforeResuming: () -> Void) -> Bool {
        guard let asker = take(slot) else { return false }
        beforeResuming()
        asker.resume(with: .failure(error))
        return true
    }

    /// Takes the asker for this handle to answer, and marks the handle as having answered.
    private func take() -> Asker? {
        slot.withLock { asker in
            answered = true
            return asker.take()
        }
    }

    private static func take(_ slot: Slot) -> Asker? {
        slot.withLock { $0.take() }
    }

    deinit {
        let lock = slot.storage
        lock.lock()
        let answered = self.answered
        lock.unlock()
        if !answered { Self.dropped(slot) }
    }

    /// Released without an answer: the asker learns it rather than waiting for ever. Not
    /// inlined, so that `deinit` looks up the types this needs only on this path.
    @inline(never)
    private static func dropped(_ slot: Slot) {
        take(slot)?.resume(with: .failure(RuntimeError.replyDropped))
    }
}
