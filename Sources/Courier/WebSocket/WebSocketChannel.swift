import Foundation

/// Courier's own WebSocket over a socket it does not own: the protocol (``WebSocketStateMachine``)
/// between the tasks that send and receive and the I/O thread that moves the bytes (on Linux,
/// ``CurlTransport``'s event loop).
///
/// The I/O thread meets the channel once per turn (``turn(received:output:written:)``): it hands
/// in what it read and what it wrote, takes the frames queued since, and learns whether to read
/// and whether to end the socket; it reads and writes outside the channel's lock. Tasks wait for
/// messages and for room to send through continuations; ``wake`` tells the I/O thread that
/// there is something to do.
final class WebSocketChannel: WebSocketBackend, @unchecked Sendable {
    // Invariant: every `var` is touched only under `lock`; `wake` and the limits are set before
    // the channel is shared. No continuation is resumed under the lock.
    private enum Ending {
        case closed(code: WebSocketCloseCode?, reason: String)
        case failed(NetworkError)
    }

    private let lock = Lock()
    private let receiveLimit: Int
    private let sendLimit: Int
    private let frameSize: Int
    private let host: String
    private let port: Int
    /// Nudges the I/O thread: output to write, room to read, or the socket to end.
    let wake: @Sendable () -> Void
    /// Writes to the socket from the sending task when nothing is queued ahead: what it could
    /// write now without blocking (0 when the socket is full or the I/O thread is using it).
    private let writeNow: (@Sendable (UnsafeRawBufferPointer) -> Int)?

    private var machine: WebSocketStateMachine
    /// A random source the client was given instead of the system's (tests); nil: mask keys
    /// come from `maskKeys`.
    private var random: (any RandomSource)?
    private var maskKeys = WebSocketMaskKeys()
    private var inbound: [WebSocketMessage] = []
    private var inboundHead = 0
    private var inboundBytes = 0
    private var ending: Ending?
    private var reader: CheckedContinuation<Void, Never>?
    /// Frames queued since the I/O thread last took them.
    private var outbound: [UInt8] = []
    /// Bytes the I/O thread took and had not written at its last turn: they count against the
    /// send buffer's limit until it says they are out.
    private var unsent = 0
    private var writers: [UInt64: CheckedContinuation<Bool, Never>] = [:]
    private var nextWriter: UInt64 = 0
    /// Set once the connection must end when the writes are out (the close handshake is over,
    /// or the peer broke the protocol), or at once (``abort(_:)``).
    private var dropAfterFlush = false
    private var dropNow = false
    private var awaitingPong = false
    private var endActions: [@Sendable () -> Void] = []
    private var ended = false

    /// The negotiated `permessage-deflate`, if any: messages sent are compressed with it.
    private let compression: PerMessageDeflate?

    init(options: WebSocketOptions, compression: PerMessageDeflate? = nil, host: String, port: Int,
         wake: @escaping @Sendable () -> Void, writeNow: (@Sendable (UnsafeRawBufferPointer) -> Int)? = nil) {
        self.writeNow = writeNow
        machine = WebSocketStateMachine(
            maxFrameSize: max(0, options.maxFrameSize), maxMessageSize: max(0, options.maxMessageSize), compression: compression)
        self.compression = compression
        receiveLimit = max(1, options.receiveBufferSize)
        sendLimit = max(1, options.sendBufferSize)
        frameSize = max(1, options.outgoingFrameSize)
        self.host = host
        self.port = port
        self.wake = wake
    }

    // MARK: The I/O thread

    /// What the I/O thread does after a turn.
    struct Turn: Equatable {
        /// Whether the socket should be read: the connection goes on and the reader's buffer
        /// has room.
        var wantsToRead: Bool
        /// The socket must close now (``abort(_:)``).
        var dropNow: Bool
        /// The socket must close once the output handed over is written (the close handshake
        /// is over, or the peer broke the protocol).
        var dropWhenWritten: Bool
        /// Senders wait for room: the next turn, which reports what was written, frees them.
        var writersWaiting: Bool
    }

    /// One turn of the I/O thread, under the lock once: `received` (bytes read from the socket)
    /// goes to the protocol; `written` says how much of `output` went out. When all of it did,
    /// `output` becomes the frames queued since (and `written` 0), to be written outside the
    /// lock.
    func turn(received: UnsafeRawBufferPointer, output: inout [UInt8], written: inout Int) -> Turn {
        var resume: [() -> Void] = []
        let turn = lock.withLock { () -> Turn in
            if !received.isEmpty { deliver(received, &resume) }
            if written >= output.count {
                // The emptied array goes back to the tasks, its capacity kept unless a large
                // message grew it.
                output.removeAll(keepingCapacity: output.capacity <= 4 * sendLimit)
                swap(&output, &outbound)
                written = 0
            }
            unsent = output.count - written
            if outbound.count + unsent < sendLimit, !writers.isEmpty {
                let waiting = writers.values
                writers.removeAll()
                for writer in waiting { resume.append { writer.resume(returning: true) } }
            }
            if let reader, inboundHead < inbound.count || ending != nil {
                self.reader = nil
                resume.append { reader.resume() }
            }
            return Turn(
                wantsToRead: !dropNow && ending == nil && inboundBytes < receiveLimit,
                dropNow: dropNow,
                dropWhenWritten: dropAfterFlush && outbound.isEmpty,
                writersWaiting: !writers.isEmpty)
        }
        for action in resume { action() }
        return turn
    }

    /// The socket ended (closed by the peer, reset, or dropped by us): the reader gets the end,
    /// or `error` (a lost connection by default) if the close handshake did not finish.
    func socketEnded(_ error: NetworkError? = nil) {
        var resume: [() -> Void] = []
        lock.withLock {
            machine.abandon()
            end(.failed(error ?? .connectionLost(host: host, port: port, underlying: nil)), &resume)
            dropNow = true
            // The end actions run before the reader wakes: what it does next sees the end.
            if !ended {
                ended = true
                resume = endActions.map { action in { action() } } + resume
                endActions = []
            }
            if let reader {
                self.reader = nil
                resume.append { reader.resume() }
            }
            let waiting = writers.values
            writers.removeAll()
            for writer in waiting { resume.append { writer.resume(returning: false) } }
        }
        for action in resume { action() }
    }

    // MARK: Tasks

    func receive() async throws(NetworkError) -> WebSocketMessage? {
        while true {
            let taken = try lock.withLock { () -> Result<WebSocketMessage??, NetworkError> in
                if inboundHead < inbound.count {
                    let message = inbound[inboundHead]
                    inboundHead += 1
                    let wasFull = inboundBytes >= receiveLimit
                    inboundBytes -= Self.size(of: message)
                    if inboundHead == inbound.count {
                        inbound.removeAll(keepingCapacity: true)
                        inboundHead = 0
                    }
                    if wasFull, inboundBytes < receiveLimit { wake() }
                    return .success(.some(message))
                }
                switch ending {
                case .closed: return .success(.some(nil))
                case .failed(let error): return .failure(error)
                case nil: return .success(nil)
                }
            }.get()
            if let taken { return taken }
            if Task.isCancelled {
                close(code: .goingAway, reason: "")
                throw .cancelled
            }
            var busy = false
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    // Cancelled before the continuation is in place, the handler found no reader:
                    // the flag, set before the handler runs, is read under the same lock.
                    let ready = lock.withLock { () -> Bool in
                        if inboundHead < inbound.count || ending != nil || Task.isCancelled { return true }
                        if reader != nil { busy = true; return true }
                        reader = continuation
                        return false
                    }
                    if ready { continuation.resume() }
                }
            } onCancel: {
                let waiting = lock.withLock { () -> CheckedContinuation<Void, Never>? in
                    defer { reader = nil }
                    return reader
                }
                waiting?.resume()
            }
            if busy { throw .invalidRequest("two tasks read one WebSocket at once") }
        }
    }

    func send(_ message: WebSocketMessage) async throws(NetworkError) {
        var (opcode, payload): (WebSocketOpcode, Data)
        switch message {
        case .text(let text): (opcode, payload) = (.text, Data(text.utf8))
        case .binary(let data): (opcode, payload) = (.binary, data)
        }
        try await waitForRoom()
        var reserved: UInt8 = 0
        let queued = try lock.withLock { () -> Result<Bool, NetworkError> in
            guard machine.canSend, ending == nil, !dropNow else { return .failure(closedError()) }
            // Nothing ahead of this message, queued or held by the I/O thread: it may go out
            // from here, under the lock so that no later message overtakes it.
            let first = outbound.isEmpty && unsent == 0
            // Compressed here, under the lock: the deflate stream's context follows the order of
            // the messages on the wire.
            if let compression {
                guard let compressed = compression.compress(payload) else {
                    return .failure(.encodingError(underlying: WebSocketProtocolError(code: .internalServerError, reason: "zlib failed to deflate")))
                }
                payload = compressed
                reserved = 0b100
            }
            // A message in frames of at most `frameSize` bytes, each masked with its own key.
            payload.withUnsafeBytes { bytes in
                var offset = 0
                repeat {
                    let end = min(bytes.count, offset + frameSize)
                    enqueue(
                        fin: end == bytes.count, reserved: offset == 0 ? reserved : 0, opcode: offset == 0 ? opcode : .continuation,
                        payload: UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
                    offset = end
                } while offset < bytes.count
            }
            if first, let writeNow {
                let written = outbound.withUnsafeBytes { writeNow($0) }
                if written == outbound.count {
                    outbound.removeAll(keepingCapacity: outbound.capacity <= 4 * sendLimit)
                    return .success(false)
                }
                outbound.removeSubrange(0..<written)
            }
            return .success(true)
        }.get()
        if queued { wake() }
    }

    func ping() -> Bool {
        let sent = lock.withLock { () -> Bool in
            guard machine.canSend, ending == nil, !awaitingPong else { return false }
            awaitingPong = true
            enqueue(WebSocketFrame(opcode: .ping))
            return true
        }
        if sent { wake() }
        return sent
    }

    func close(code: WebSocketCloseCode, reason: String) {
        let sent = lock.withLock { () -> Bool in
            guard let frame = machine.close(code: code, reason: reason) else { return false }
            enqueue(frame)
            return true
        }
        if sent { wake() }
    }

    func abort(_ error: NetworkError) {
        lock.withLock {
            if ending == nil { ending = .failed(error) }
            dropNow = true
        }
        wake()
    }

    var closeStatus: (code: WebSocketCloseCode?, reason: String)? {
        lock.withLock {
            if case .closed(let code, let reason) = ending { return (code, reason) }
            return nil
        }
    }

    func onEnd(_ action: @escaping @Sendable () -> Void) {
        let now = lock.withLock { () -> Bool in
            if ended { return true }
            endActions.append(action)
            return false
        }
        if now { action() }
    }

    func useRandom(_ random: any RandomSource) {
        // The system's generator is read in bulk for mask keys (`maskKeys`); any other source
        // (a seeded one in tests) is used as given.
        lock.withLock { self.random = random is SystemRandomSource ? nil : random }
    }

    // MARK: Under the lock

    /// Bytes read from the socket, through the protocol.
    private func deliver(_ bytes: UnsafeRawBufferPointer, _ resume: inout [() -> Void]) {
        for action in machine.receive(bytes) {
            switch action {
            case .deliver(let message):
                inbound.append(message)
                inboundBytes += Self.size(of: message)
            case .write(let frame):
                enqueue(frame)
            case .pongReceived:
                awaitingPong = false
            case .closed(let code, let reason):
                end(.closed(code: code, reason: reason), &resume)
                dropAfterFlush = true
            case .failed(let error):
                let failure: NetworkError = error.code == .messageTooBig
                    ? .responseTooLarge(limit: machine.maxMessageSize)
                    : .malformedResponse("WebSocket: \(error.reason) (closed with \(error.code))", underlying: error)
                end(.failed(failure), &resume)
                dropAfterFlush = true
            }
        }
    }

    private func enqueue(_ frame: WebSocketFrame) {
        frame.payload.withUnsafeBytes { enqueue(fin: frame.fin, reserved: frame.reserved, opcode: frame.opcode, payload: $0) }
    }

    /// Writes a masked frame straight into the send buffer: the payload is copied once.
    private func enqueue(fin: Bool, reserved: UInt8, opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer) {
        let key = random.map { UInt32(truncatingIfNeeded: $0.next()) } ?? maskKeys.next()
        WebSocketFrame.appendHeader(to: &outbound, fin: fin, reserved: reserved, opcode: opcode, length: payload.count, maskKey: key)
        guard !payload.isEmpty else { return }
        let start = outbound.count
        outbound.append(contentsOf: payload.assumingMemoryBound(to: UInt8.self))
        outbound.withUnsafeMutableBytes { WebSocketFrame.mask(UnsafeMutableRawBufferPointer(rebasing: $0[start...]), key: key) }
    }

    private func end(_ how: Ending, _ resume: inout [() -> Void]) {
        if ending == nil { ending = how }
        let waiting = writers.values
        writers.removeAll()
        for writer in waiting { resume.append { writer.resume(returning: false) } }
    }

    private func closedError() -> NetworkError {
        if case .failed(let error) = ending { return error }
        return .invalidRequest("the WebSocket is closing or closed: nothing more can be sent")
    }

    /// Waits until the send buffer is below its limit.
    private func waitForRoom() async throws(NetworkError) {
        while true {
            let id = try lock.withLock { () -> Result<UInt64?, NetworkError> in
                guard machine.canSend, ending == nil, !dropNow else { return .failure(closedError()) }
                if outbound.count + unsent < sendLimit { return .success(nil) }
                nextWriter += 1
                return .success(nextWriter)
            }.get()
            guard let id else { return }
            if Task.isCancelled { throw .cancelled }
            let proceed = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                    // As for the reader: a cancellation before the continuation is in place.
                    let ready = lock.withLock { () -> Bool? in
                        if Task.isCancelled { return false }
                        if outbound.count + unsent < sendLimit || ending != nil || dropNow { return true }
                        writers[id] = continuation
                        return nil
                    }
                    if let ready { continuation.resume(returning: ready) }
                }
            } onCancel: {
                let waiting = lock.withLock { writers.removeValue(forKey: id) }
                waiting?.resume(returning: false)
            }
            if !proceed, Task.isCancelled { throw .cancelled }
        }
    }

    private static func size(of message: WebSocketMessage) -> Int {
        switch message {
        case .text(let text): text.utf8.count
        case .binary(let data): data.count
        }
    }
}
