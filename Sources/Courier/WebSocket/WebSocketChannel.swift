import Foundation

/// Courier's own WebSocket over a socket it does not own: the protocol (``WebSocketStateMachine``)
/// between the tasks that send and receive and the I/O thread that moves the bytes (on Linux,
/// ``CurlTransport``'s event loop).
///
/// The I/O thread asks ``wantsToRead`` (the reader's buffer has room), hands in what it read
/// (``received(_:)``), writes what ``withPendingOutput(_:)`` gives, and ends the socket when
/// ``shouldDrop`` says so. Tasks wait for messages and for room to send through continuations;
/// ``wake`` tells the I/O thread that there is something to do.
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

    private var machine: WebSocketStateMachine
    private var random: (any RandomSource)?
    private var inbound: [WebSocketMessage] = []
    private var inboundHead = 0
    private var inboundBytes = 0
    private var ending: Ending?
    private var reader: CheckedContinuation<Void, Never>?
    private var outbound: [UInt8] = []
    private var outboundHead = 0
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

    init(options: WebSocketOptions, compression: PerMessageDeflate? = nil, host: String, port: Int, wake: @escaping @Sendable () -> Void) {
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

    /// Whether the socket should be read: the connection goes on and the reader's buffer has
    /// room.
    var wantsToRead: Bool {
        lock.withLock { !dropNow && ending == nil && inboundBytes < receiveLimit }
    }

    /// Whether bytes wait to be written.
    var hasOutput: Bool {
        lock.withLock { !dropNow && outboundHead < outbound.count }
    }

    /// Whether the socket should be closed now.
    var shouldDrop: Bool {
        lock.withLock { dropNow || (dropAfterFlush && outboundHead == outbound.count) }
    }

    /// Bytes read from the socket.
    func received(_ bytes: UnsafeRawBufferPointer) {
        var resume: [() -> Void] = []
        lock.withLock {
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
            if let reader, inboundHead < inbound.count || ending != nil {
                self.reader = nil
                resume.append { reader.resume() }
            }
        }
        for action in resume { action() }
    }

    /// Hands the bytes waiting to be written to `write`, which returns how many it wrote.
    func withPendingOutput(_ write: (UnsafeRawBufferPointer) -> Int) {
        var resume: [() -> Void] = []
        lock.withLock {
            guard outboundHead < outbound.count else { return }
            let written = outbound.withUnsafeBytes { write(UnsafeRawBufferPointer(rebasing: $0[outboundHead...])) }
            outboundHead += written
            if outboundHead == outbound.count {
                outbound.removeAll(keepingCapacity: outbound.capacity <= 4 * sendLimit)
                outboundHead = 0
            } else if outboundHead >= outbound.count / 2 {
                outbound.removeSubrange(0..<outboundHead)
                outboundHead = 0
            }
            if outbound.count - outboundHead < sendLimit, !writers.isEmpty {
                let waiting = writers.values
                writers.removeAll()
                for writer in waiting { resume.append { writer.resume(returning: true) } }
            }
        }
        for action in resume { action() }
    }

    /// The socket ended (closed by the peer, reset, or dropped by us): the reader gets the end,
    /// or `error` (a lost connection by default) if the close handshake did not finish.
    func socketEnded(_ error: NetworkError? = nil) {
        var resume: [() -> Void] = []
        lock.withLock {
            machine.abandon()
            end(.failed(error ?? .connectionLost(host: host, port: port, underlying: nil)), &resume)
            dropNow = true
            if let reader {
                self.reader = nil
                resume.append { reader.resume() }
            }
            let waiting = writers.values
            writers.removeAll()
            for writer in waiting { resume.append { writer.resume(returning: false) } }
            if !ended {
                ended = true
                resume += endActions.map { action in { action() } }
                endActions = []
            }
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
                    let ready = lock.withLock { () -> Bool in
                        if inboundHead < inbound.count || ending != nil { return true }
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
        try lock.withLock { () -> Result<Void, NetworkError> in
            guard machine.canSend, ending == nil, !dropNow else { return .failure(closedError()) }
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
            var offset = 0
            repeat {
                let end = min(payload.count, offset + frameSize)
                let frame = WebSocketFrame(
                    fin: end == payload.count, reserved: offset == 0 ? reserved : 0, opcode: offset == 0 ? opcode : .continuation,
                    payload: payload.subdata(in: payload.startIndex + offset..<payload.startIndex + end))
                enqueue(frame)
                offset = end
            } while offset < payload.count
            return .success(())
        }.get()
        wake()
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
        lock.withLock { self.random = random }
    }

    // MARK: Under the lock

    private func enqueue(_ frame: WebSocketFrame) {
        let key = UInt32(truncatingIfNeeded: random?.next() ?? UInt64.random(in: 0...UInt64.max))
        var head = Data()
        WebSocketFrame.appendHeader(to: &head, fin: frame.fin, reserved: frame.reserved, opcode: frame.opcode, length: frame.payload.count, maskKey: key)
        outbound.append(contentsOf: head)
        let start = outbound.count
        outbound.append(contentsOf: frame.payload)
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
                if outbound.count - outboundHead < sendLimit { return .success(nil) }
                nextWriter += 1
                return .success(nextWriter)
            }.get()
            guard let id else { return }
            if Task.isCancelled { throw .cancelled }
            let proceed = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                    let ready = lock.withLock { () -> Bool in
                        if outbound.count - outboundHead < sendLimit || ending != nil || dropNow { return true }
                        writers[id] = continuation
                        return false
                    }
                    if ready { continuation.resume(returning: true) }
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
