import Foundation

/// The bounded buffer between a transport that receives a body and the one consumer that reads
/// it (``ResponseBytes``): the transport offers chunks, the consumer takes them.
///
/// Backpressure: once ``highWater`` bytes wait unread, ``offer(_:)`` refuses the next chunk
/// (the transport pauses the connection and is given those bytes again later) and the buffer
/// counts as paused; when the consumer has read it down to ``lowWater``, `resume` is called
/// once (the transport queues the un-pause on its own thread). Cancellation (`cancel()`, the
/// reading task cancelled) calls `cancelTransfer` once, unless the body had already ended.
final class ResponseBodyBuffer: ResponseBodySource, @unchecked Sendable {
    // Invariant: every mutable field lives in `state`, read and written only under its lock;
    // the `let`s are set at init. The closures are called outside the lock.
    /// Bytes held unread above which the transport is paused.
    static let highWater = 1 << 20
    /// Bytes held unread at or below which a paused transport is resumed.
    static let lowWater = 256 << 10
    /// The most a transport receives at once (``CurlTransport``'s `CURLOPT_BUFFERSIZE` for a
    /// streamed body), so the most one offered chunk holds: two fit under ``highWater``.
    static let receiveBlock = highWater / 2

    private struct State {
        var chunks = ChunkQueue()
        var maxBuffered = 0
        /// Whether the transport is paused: from a refused offer until it says it resumed.
        var paused = false
        /// Whether `resume` was called for the current pause.
        var resumeRequested = false
        var pauses = 0
        /// How the body ended: nil while it goes on.
        var end: Result<Void, NetworkError>?
        /// Whether the consumer was given the end (after which it reads nil).
        var endDelivered = false
        /// The consumer, waiting to be woken: it then takes what came from the queue, under
        /// the lock (never handed over in the continuation, which ThreadSanitizer cannot see).
        var waiter: CheckedContinuation<Void, Never>?
        var pauseWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())
    private let resume: @Sendable () -> Void
    private let cancelTransfer: @Sendable () -> Void

    init(resume: @escaping @Sendable () -> Void, cancelTransfer: @escaping @Sendable () -> Void) {
        self.resume = resume
        self.cancelTransfer = cancelTransfer
    }

    // MARK: The transport's side

    /// Stores a copy of `bytes` for the consumer; `false` (nothing stored, the buffer now
    /// paused) when ``highWater`` bytes already wait. Bytes offered after the body ended are
    /// dropped (accepted).
    func offer(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let chunk = Data(bytes)
        let (accepted, waiter, pauseWaiters) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?, [CheckedContinuation<Void, Never>]) in
            guard state.end == nil else { return (true, nil, []) }
            if state.chunks.byteCount >= Self.highWater {
                state.paused = true
                state.pauses += 1
                defer { state.pauseWaiters = [] }
                return (false, nil, state.pauseWaiters)
            }
            state.chunks.append(chunk)
            state.maxBuffered = max(state.maxBuffered, state.chunks.byteCount)
            defer { state.waiter = nil }
            return (true, state.waiter, [])
        }
        waiter?.resume()
        for pauseWaiter in pauseWaiters { pauseWaiter.resume() }
        return accepted
    }

    /// Whether the transport is paused for the consumer (a stall is then not the server's),
    /// from a refused offer until ``resumed()``.
    var isPaused: Bool { state.withLock { $0.paused } }

    /// The transport un-pauses (it may offer again at once).
    func resumed() {
        state.withLock { state in
            state.paused = false
            state.resumeRequested = false
        }
    }

    /// Ends the body: `nil` when it is complete, else the error the consumer gets after the
    /// chunks already buffered. Only the first end counts.
    func finish(_ error: NetworkError?) {
        let (waiter, pauseWaiters) = state.withLock { state -> (CheckedContinuation<Void, Never>?, [CheckedContinuation<Void, Never>]) in
            guard state.end == nil else { return (nil, []) }
            state.end = error.map { .failure($0) } ?? .success(())
            defer { (state.waiter, state.pauseWaiters) = (nil, []) }
            return (state.waiter, state.pauseWaiters)
        }
        waiter?.resume()
        for pauseWaiter in pauseWaiters { pauseWaiter.resume() }
    }

    // MARK: The consumer's side

    func next() async throws(NetworkError) -> Data? {
        // Checked before the buffer: a transport faster than its reader keeps chunks waiting,
        // and the reader would never see its cancellation.
        if Task.isCancelled {
            cancel()
            throw .cancelled
        }
        while true {
            if let taken = take() { return try taken.get() }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    if !wait(continuation) { continuation.resume() }
                }
            } onCancel: {
                cancel()
            }
        }
    }

    /// Stores `continuation` to be woken when a chunk or the end comes; `false` if one is there
    /// already (nothing stored).
    private func wait(_ continuation: CheckedContinuation<Void, Never>) -> Bool {
        state.withLock { state in
            guard state.chunks.isEmpty, state.end == nil else { return false }
            state.waiter = continuation
            return true
        }
    }

    /// The next chunk or the end, if there is one now.
    private func take() -> Result<Data?, NetworkError>? {
        let (taken, resumes) = state.withLock { state -> (Result<Data?, NetworkError>?, Bool) in
            if let chunk = state.chunks.popFirst() {
                var resumes = false
                if state.paused, !state.resumeRequested, state.chunks.byteCount <= Self.lowWater, state.end == nil {
                    state.resumeRequested = true
                    resumes = true
                }
                return (.success(chunk), resumes)
            }
            if let end = state.end {
                if state.endDelivered { return (.success(nil), false) }
                state.endDelivered = true
                return (end.map { nil }, false)
            }
            return (nil, false)
        }
        if resumes { resume() }
        return taken
    }

    func cancel() {
        let (waiter, pauseWaiters, cancels) = state.withLock { state -> (CheckedContinuation<Void, Never>?, [CheckedContinuation<Void, Never>], Bool) in
            guard state.end == nil else { return (nil, [], false) }
            state.end = .failure(.cancelled)
            state.chunks.removeAll()
            defer { (state.waiter, state.pauseWaiters) = (nil, []) }
            return (state.waiter, state.pauseWaiters, true)
        }
        waiter?.resume()
        for pauseWaiter in pauseWaiters { pauseWaiter.resume() }
        if cancels { cancelTransfer() }
    }

    var maxBufferedBytes: Int { state.withLock { $0.maxBuffered } }

    /// How many times the transport was paused for the consumer.
    var pauseCount: Int { state.withLock { $0.pauses } }

    /// Returns once the transport has been paused at least once (tests: a slow consumer).
    func waitUntilPaused() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.pauses > 0 || state.end != nil { return true }
                state.pauseWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
