import Courier
import Foundation
import OpenAPIRuntime

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Carries an `HTTPBody` (an async sequence) to a transport's synchronous body reader: a task
/// iterates the body and hands its chunks over through a bounded buffer, which the transport's
/// thread drains. Neither side holds the body whole: the producer waits (suspended, never
/// blocking a thread) while ``bufferLimit`` bytes are unread.
///
/// The reader blocks its thread only while the producer is behind, as a file read would; a
/// body whose producer waits long (a network source) holds that thread as long.
///
/// Thread safety: every mutable field is read and written only with `mutex` held; the mutex and
/// condition are heap-allocated (never moved), and `deinit` runs when neither side holds the
/// pump any more. Continuations are resumed after the mutex is released.
final class RequestBodyPump: @unchecked Sendable {
    /// The most unread bytes buffered before the producer waits.
    static let bufferLimit = 256 * 1024

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var chunks: [Data] = []
    private var first = 0
    private var buffered = 0
    private var finished = false
    private var failure: (any Error)?
    private var closed = false
    private var producerWaiting: CheckedContinuation<Void, Never>?
    private var producer: Task<Void, Never>?

    private init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deinitialize(count: 1)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// `body` as Courier's body stream: each reader the transport makes starts a fresh
    /// iteration (a body the runtime may iterate more than once can be sent again, for a retry
    /// or a 401's renewal; one it iterates once is sent once).
    static func stream(of body: HTTPBody) -> HTTPBodyStream {
        let length: Int? = if case .known(let count) = body.length { Int(count) } else { nil }
        if body.iterationBehavior == .multiple {
            return HTTPBodyStream(length: length) {
                let end = ReaderEnd(body: body)
                return { maxLength in try end.read(maxLength: maxLength) }
            }
        }
        let end = ReaderEnd(body: body)
        return HTTPBodyStream(length: length, readingOnce: { maxLength in try end.read(maxLength: maxLength) })
    }

    /// A pump whose producer task iterates `body` from its first byte.
    private static func start(_ body: HTTPBody) -> RequestBodyPump {
        let pump = RequestBodyPump()
        let task = Task { await pump.produce(from: body) }
        let closedAlready = pump.locked { () -> Bool in
            pump.producer = task
            return pump.closed
        }
        if closedAlready { task.cancel() }
        return pump
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Iterates `body` into the buffer until it ends, fails, or the reader goes away.
    private func produce(from body: HTTPBody) async {
        do {
            for try await chunk in body {
                guard await push(Data(chunk)) else { return }
            }
            finish(nil)
        } catch {
            finish(error)
        }
    }

    /// Buffers `chunk` and waits while the buffer is full; `false` once the reader went away.
    private func push(_ chunk: Data) async -> Bool {
        let full = locked { () -> Bool? in
            guard !closed else { return nil }
            if !chunk.isEmpty {
                chunks.append(chunk)
                buffered += chunk.count
                pthread_cond_signal(condition)
            }
            return buffered >= Self.bufferLimit
        }
        guard let full else { return false }
        if full {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = locked { () -> Bool in
                    if closed || buffered < Self.bufferLimit { return true }
                    producerWaiting = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
        return locked { !closed }
    }

    private func finish(_ error: (any Error)?) {
        locked {
            finished = true
            failure = error
            pthread_cond_signal(condition)
        }
    }

    /// Up to `maxLength` bytes, waiting for the producer while the buffer is empty; an empty
    /// `Data` at the body's end. Throws the body's own error.
    func read(maxLength: Int) throws -> Data {
        pthread_mutex_lock(mutex)
        while first == chunks.count && !finished {
            pthread_cond_wait(condition, mutex)
        }
        guard first < chunks.count else {
            let failure = self.failure
            pthread_mutex_unlock(mutex)
            if let failure { throw failure }
            return Data()
        }
        var chunk = chunks[first]
        if chunk.count > maxLength {
            chunks[first] = chunk.dropFirst(maxLength)
            chunk = chunk.prefix(maxLength)
        } else {
            first += 1
            if first == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                first = 0
            }
        }
        buffered -= chunk.count
        var waiting: CheckedContinuation<Void, Never>?
        if buffered < Self.bufferLimit { swap(&waiting, &producerWaiting) }
        pthread_mutex_unlock(mutex)
        waiting?.resume()
        return Data(chunk)
    }

    /// The reader went away (the exchange ended, however): the producer stops.
    fileprivate func close() {
        let (waiting, producer) = locked { () -> (CheckedContinuation<Void, Never>?, Task<Void, Never>?) in
            closed = true
            chunks.removeAll()
            first = 0
            buffered = 0
            defer { producerWaiting = nil }
            return (producerWaiting, self.producer)
        }
        waiting?.resume()
        producer?.cancel()
    }

    /// Owned by one reader closure, called by one transport thread at a time: its first read
    /// starts the producer (a body never read is never iterated); when the transport drops the
    /// reader, the pump closes.
    private final class ReaderEnd {
        let body: HTTPBody
        var pump: RequestBodyPump?

        init(body: HTTPBody) {
            self.body = body
        }

        func read(maxLength: Int) throws -> Data {
            let pump = self.pump ?? RequestBodyPump.start(body)
            self.pump = pump
            return try pump.read(maxLength: maxLength)
        }

        deinit {
            pump?.close()
        }
    }
}
