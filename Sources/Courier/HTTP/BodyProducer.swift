import Foundation

/// A request body an async sequence produces (``HTTPBodyStream/chunks(_:length:reopenable:)``),
/// carried to the transport through a bounded buffer. A task of its own iterates the sequence and
/// waits, suspended, while ``bufferLimit`` bytes are unread; the transport takes what is there
/// without waiting (``poll(maxLength:wake:)`` answers `later` and calls `wake` once bytes or the
/// end arrive), so an event loop never waits on its thread for a slow producer. A transport that
/// reads on a thread of its own may wait instead (``PolledBody/blockingReader()``).
///
/// The producer stops when ``close()`` is called (the exchange ended, however): its task is
/// cancelled, and a push after that is refused.
final class BodyProducer: PolledBody {
    /// What the transport finds when it asks for bytes.
    enum Poll: Equatable {
        case bytes(Data)
        /// The body ended.
        case end
        /// Nothing yet: the `wake` given will be called once something arrives.
        case later
    }

    /// The most unread bytes buffered before the producer waits.
    static let bufferLimit = 256 * 1024

    private struct State {
        var chunks = ChunkQueue()
        var finished = false
        var failure: (any Error)?
        var closed = false
        /// The producer, waiting for the buffer to drain.
        var producerWaiting: CheckedContinuation<Void, Never>?
        /// The transport, waiting for bytes (called once, then dropped).
        var wake: (@Sendable () -> Void)?
        var task: Task<Void, Never>?
    }

    private let state = Locked(State())

    /// Starts iterating `chunks` at once, into the buffer.
    init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks) where Chunks.Element == Data {
        // The task holds the producer until the sequence ends or `close` stops it.
        let task = Task { await self.produce(chunks) }
        state.withLock { $0.task = task }
    }

    private func produce<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks) async where Chunks.Element == Data {
        do {
            for try await chunk in chunks {
                guard await push(chunk) else { return }
            }
            end(nil)
        } catch {
            end(error)
        }
    }

    /// Buffers `chunk`, wakes a waiting transport, and waits while the buffer is full; `false`
    /// once the transport went away.
    private func push(_ chunk: Data) async -> Bool {
        guard !chunk.isEmpty else { return state.withLock { !$0.closed } }
        let (accepted, full, wake) = state.withLock { state -> (Bool, Bool, (@Sendable () -> Void)?) in
            guard !state.closed else { return (false, false, nil) }
            state.chunks.append(chunk)
            defer { state.wake = nil }
            return (true, state.chunks.byteCount >= Self.bufferLimit, state.wake)
        }
        wake?()
        guard accepted else { return false }
        if full {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.closed || state.chunks.byteCount < Self.bufferLimit { return true }
                    state.producerWaiting = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
        return state.withLock { !$0.closed }
    }

    /// The sequence ended (`failure` nil) or failed.
    private func end(_ failure: (any Error)?) {
        let wake = state.withLock { state -> (@Sendable () -> Void)? in
            state.finished = true
            state.failure = failure
            defer { state.wake = nil }
            return state.wake
        }
        wake?()
    }

    /// Up to `maxLength` bytes that are there now, the end, or `later` (then `wake` is called,
    /// once, when there is something). Throws the sequence's own error once its bytes are read.
    func poll(maxLength: Int, wake: @escaping @Sendable () -> Void) throws -> Poll {
        let (poll, producer) = try state.withLock { state throws in
            guard let chunk = state.chunks.popFirst(maxLength: maxLength) else {
                if state.finished {
                    if let failure = state.failure { throw failure }
                    return (Poll.end, CheckedContinuation<Void, Never>?.none)
                }
                state.wake = wake
                return (.later, nil)
            }
            var producer: CheckedContinuation<Void, Never>?
            if state.chunks.byteCount < Self.bufferLimit { swap(&producer, &state.producerWaiting) }
            return (.bytes(Data(chunk)), producer)
        }
        producer?.resume()
        return poll
    }

    /// The transport went away: the producer stops, and what it buffered is dropped.
    func close() {
        let (producer, task) = state.withLock { state -> (CheckedContinuation<Void, Never>?, Task<Void, Never>?) in
            state.closed = true
            state.chunks.removeAll()
            state.wake = nil
            defer { state.producerWaiting = nil }
            return (state.producerWaiting, state.task)
        }
        producer?.resume()
        task?.cancel()
    }
}
