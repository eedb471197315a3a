#if canImport(CCurl)
import CCurl
import Foundation

/// One WebSocket over ``CurlTransport``: libcurl connects (TCP, TLS and its pins, the proxy's
/// tunnel) with `CURLOPT_CONNECT_ONLY`, then Courier writes the Upgrade request, reads the
/// answer's head, and on a 101 moves the frames of a ``WebSocketChannel`` with
/// `curl_easy_send`/`curl_easy_recv`, all on the transport's event loop thread.
///
/// The easy handle sits in a multi handle of its own: a connect-only connection kept in the
/// transport's shared multi handle would be in its connection cache, which closes idle
/// connections it takes for dead (any with unread bytes) or too old. While connecting, the
/// sockets libcurl watches (its socket callback) and its timeout join the loop's
/// `curl_multi_poll`; once open, the one socket, readable while the reader has room and
/// writable while frames wait.
final class CurlWebSocketConnection: @unchecked Sendable {
    // Invariant: the `let`s are set before the connection is shared. Everything else but the
    // answer and `socketOpen` is touched only on the loop's thread (the socket callback runs
    // there, inside `curl_multi_perform`). The answer only under its lock (`pendingAnswer`);
    // `socketOpen`, and libcurl's calls on the open socket, only under `io`.
    private enum Phase {
        case connecting
        case writingRequest
        case readingHead
        /// A final answer that is not a 101: its body (`remaining` bytes more), for the chain.
        case readingBody(HTTPResponse, remaining: Int)
        case open
        case finished
    }

    let handle: CurlEasyHandle
    private let multi: UnsafeMutableRawPointer
    private let options: WebSocketOptions
    private let handshake: WebSocketHandshake
    private let url: URL
    private let host: String
    private let port: Int
    private let timeout: Duration
    private let maxHeadBytes: Int
    private let bodyLimit: Int
    private let wake: @Sendable () -> Void

    private var phase = Phase.connecting
    private var deadline = ContinuousClock.now
    private var socket: curl_socket_t = -1
    /// The sockets libcurl watches while it connects, and for what (`CURL_POLL_*`).
    fileprivate var connectSockets: [curl_socket_t: Int32] = [:]
    private var requestBytes: [UInt8]
    private var requestSent = 0
    private var head: [UInt8] = []
    private var body = Data()
    /// The open WebSocket's channel, held by its ``WebSocket``: once that is gone, so is the
    /// connection.
    private weak var channel: WebSocketChannel?
    /// Where reads land, made when the socket opens: a turn's reads fill it one after another,
    /// and the channel takes them at once (a frame that is all there is copied once, into its
    /// message).
    private var readBuffer: [UInt8] = []
    /// Whether the socket may have bytes to read: false once a read found none, true again
    /// when the loop's poll says it is readable, so a turn woken for a send does not read.
    private var mayRead = true
    /// Whether the channel wanted reading at the last turn.
    private var wantsToRead = true
    /// Frames taken from the channel, and how many of their bytes are written.
    private var output: [UInt8] = []
    private var written = 0
    /// Where the socket is in the loop's poll list this turn, if it waits to read.
    private var readWaitIndex: Int?

    private let pendingAnswer = Locked(TransportAnswer())
    /// Held around every libcurl call on the open socket: the loop's reads and writes and a
    /// sending task's own write (an easy handle, and OpenSSL under it, take one thread at a
    /// time). `socketOpen` only under it.
    private let io = Lock()
    private var socketOpen = false

    init?(request: HTTPRequest, handshake: WebSocketHandshake, options: WebSocketOptions, maxHeadBytes: Int, wake: @escaping @Sendable () -> Void) {
        guard let handle = CurlEasyHandle(), let multi = curl_multi_init() else { return nil }
        self.handle = handle
        self.multi = multi
        self.options = options
        self.handshake = handshake
        url = request.url
        (host, port) = NetworkError.destination(of: request.url)
        timeout = request.timeout ?? .seconds(60)
        self.maxHeadBytes = maxHeadBytes
        bodyLimit = min(request.responseSizeLimit, 1 << 20)
        self.wake = wake
        requestBytes = Self.head(of: request)
    }

    deinit {
        curl_multi_cleanup(multi)
    }

    // MARK: Answering the caller (any thread)

    func start(_ continuation: CheckedContinuation<Void, Never>) -> Bool {
        pendingAnswer.start(continuation)
    }

    @discardableResult
    func answer(_ result: Result<HTTPResponse, NetworkError>) -> Bool {
        pendingAnswer.answer(result)
    }

    func takeAnswer() -> Result<HTTPResponse, NetworkError> {
        pendingAnswer.take()
    }

    private var isAnswered: Bool { pendingAnswer.withLock { $0.isAnswered } }

    // MARK: The loop's thread

    /// Starts connecting; false if libcurl refused.
    func begin() -> Bool {
        deadline = .now + timeout
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard courier_multi_set_socket_function(multi, webSocketSocketCallback, context) == CURLM_OK,
              curl_multi_add_handle(multi, handle.easy) == CURLM_OK else {
            answer(.failure(.unknown(underlying: CurlError(code: -1, message: "curl_multi_add_handle failed"))))
            phase = .finished
            return false
        }
        return true
    }

    /// Does what can be done now and adds the descriptors to wait for to `waits`; returns the
    /// longest wait before the next call (milliseconds), or nil once the connection is over
    /// (its handle out of libcurl, its channel told).
    func service(_ waits: inout [curl_waitfd]) -> Int32? {
        readWaitIndex = nil
        if case .finished = phase { return nil }
        if case .open = phase {} else {
            if isAnswered, case .connecting = phase { return end(nil) }
            if isAnswered, case .writingRequest = phase { return end(nil) }
            if isAnswered, case .readingHead = phase { return end(nil) }
            if ContinuousClock.now >= deadline { return fail(.timeout(.attempt, underlying: nil)) }
        }
        switch phase {
        case .connecting:
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            var remaining: Int32 = 0
            if let message = curl_multi_info_read(multi, &remaining), message.pointee.msg == CURLMSG_DONE {
                let code = message.pointee.data.result
                guard code == CURLE_OK else { return fail(connectFailure(code)) }
                var active: curl_socket_t = -1
                _ = courier_easy_get_socket(handle.easy, CURLINFO_ACTIVESOCKET, &active)
                guard active >= 0 else { return fail(.unknown(underlying: CurlError(code: -1, message: "libcurl connected no socket"))) }
                socket = active
                connectSockets = [:]
                phase = .writingRequest
                return service(&waits)
            }
            for (fd, what) in connectSockets {
                var events: Int16 = 0
                if what & Int32(CURL_POLL_IN) != 0 { events |= Int16(CURL_WAIT_POLLIN) }
                if what & Int32(CURL_POLL_OUT) != 0 { events |= Int16(CURL_WAIT_POLLOUT) }
                if events != 0 { waits.append(curl_waitfd(fd: fd, events: events, revents: 0)) }
            }
            var wait = 0
            curl_multi_timeout(multi, &wait)
            return min(untilDeadline(), wait < 0 ? 1000 : Int32(clamping: max(0, wait)))
        case .writingRequest:
            while requestSent < requestBytes.count {
                var sent = 0
                let code = requestBytes.withUnsafeBytes { bytes in
                    curl_easy_send(handle.easy, bytes.baseAddress! + requestSent, bytes.count - requestSent, &sent)
                }
                if code == CURLE_AGAIN {
                    waits.append(curl_waitfd(fd: socket, events: Int16(CURL_WAIT_POLLOUT), revents: 0))
                    return untilDeadline()
                }
                guard code == CURLE_OK else { return fail(.connectionLost(host: host, port: port, underlying: curlError(code))) }
                requestSent += sent
            }
            phase = .readingHead
            return service(&waits)
        case .readingHead:
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                var count = 0
                let code = buffer.withUnsafeMutableBytes { curl_easy_recv(handle.easy, $0.baseAddress!, $0.count, &count) }
                if code == CURLE_AGAIN {
                    waits.append(curl_waitfd(fd: socket, events: Int16(CURL_WAIT_POLLIN), revents: 0))
                    return untilDeadline()
                }
                guard code == CURLE_OK, count > 0 else {
                    return fail(.malformedResponse("the connection closed before the end of the WebSocket handshake's answer", underlying: nil))
                }
                head.append(contentsOf: buffer[0..<count])
                if let end = Self.endOfHead(head) {
                    return headArrived(end, &waits)
                }
                if head.count > maxHeadBytes {
                    return fail(.malformedResponse("the response head is over \(maxHeadBytes) bytes", underlying: nil))
                }
            }
        case .readingBody(let response, let remaining):
            var left = remaining
            var buffer = [UInt8](repeating: 0, count: 4096)
            while left > 0 {
                var count = 0
                let code = buffer.withUnsafeMutableBytes { curl_easy_recv(handle.easy, $0.baseAddress!, min($0.count, left), &count) }
                if code == CURLE_AGAIN {
                    phase = .readingBody(response, remaining: left)
                    waits.append(curl_waitfd(fd: socket, events: Int16(CURL_WAIT_POLLIN), revents: 0))
                    return untilDeadline()
                }
                guard code == CURLE_OK, count > 0 else { break }
                body.append(contentsOf: buffer[0..<count])
                left -= count
            }
            var whole = response
            whole.body = body
            answer(.success(whole))
            return end(nil)
        case .open:
            return pump(&waits)
        case .finished:
            return nil
        }
    }

    /// The head is whole (`end` bytes): a 101 opens the channel, any other answer goes back
    /// to the chain with its body.
    private func headArrived(_ headEnd: Int, _ waits: inout [curl_waitfd]) -> Int32? {
        guard let response = WebSocketHandshake.parseHead(head[0..<(headEnd - 4)]) else {
            return fail(.malformedResponse("the answer to the WebSocket handshake is not an HTTP/1.1 response head", underlying: nil))
        }
        let rest = Array(head[headEnd...])
        head = []
        guard response.status == 101 else {
            let length = response.headers["Content-Length"].flatMap { Int($0) } ?? 0
            body = Data(rest.prefix(max(0, length)))
            phase = .readingBody(response, remaining: min(max(0, length), bodyLimit) - body.count)
            return service(&waits)
        }
        let chosen: (subprotocol: String?, compression: PerMessageDeflate.Parameters?)
        do {
            chosen = try handshake.validate(response)
        } catch {
            return fail(error)
        }
        var compression: PerMessageDeflate?
        if let parameters = chosen.compression {
            guard let made = PerMessageDeflate(parameters) else {
                return fail(.unknown(underlying: CurlError(code: -1, message: "zlib could not start a deflate stream")))
            }
            compression = made
        }
        let channel = WebSocketChannel(options: options, compression: compression, host: host, port: port, wake: wake) { [io, self] bytes in
            // A task's write: never waits for the loop (it then queues instead).
            io.withLockIfAvailable { () -> Int in
                guard self.socketOpen else { return 0 }
                var sent = 0
                return curl_easy_send(self.handle.easy, bytes.baseAddress!, bytes.count, &sent) == CURLE_OK ? sent : 0
            } ?? 0
        }
        io.withLock { socketOpen = true }
        var opened = response
        opened.upgradedConnection = channel
        self.channel = channel
        phase = .open
        readBuffer = [UInt8](repeating: 0, count: Self.readBufferSize)
        // Frames the server sent right behind its head.
        if !rest.isEmpty {
            let turn = rest.withUnsafeBytes { channel.turn(received: $0, output: &output, written: &written) }
            wantsToRead = turn.wantsToRead
        }
        guard answer(.success(opened)) else { return end(nil) }
        return pump(&waits)
    }

    private static let readBufferSize = 128 * 1024

    /// The loop's poll returned: a socket it found readable is read on the next turn.
    func polled(_ waits: [curl_waitfd]) {
        guard let index = readWaitIndex, index < waits.count else { return }
        // libcurl reports POLLIN, not POLLHUP or POLLERR; Linux sets POLLIN with them for a TCP
        // socket whose peer closed or reset it, so an ended socket is read (and ended) too.
        if waits[index].revents & Int16(CURL_WAIT_POLLIN) != 0 { mayRead = true }
    }

    /// Moves the open channel's bytes: reads while its reader has room and the socket may be
    /// readable, meets the channel once (``WebSocketChannel/turn(received:output:written:)``),
    /// then writes what it handed over, outside the channel's lock.
    private func pump(_ waits: inout [curl_waitfd]) -> Int32? {
        guard let channel else { return end(nil) }
        let easy = handle.easy
        var count = 0
        var lost: NetworkError?
        var socketEnded = false
        // A few reads a turn: one socket streaming a large message must not starve the loop's
        // other sockets and transfers (the next turn comes at once).
        var reads = 0
        while wantsToRead, mayRead, reads < 4, count < readBuffer.count {
            reads += 1
            var got = 0
            let code = readBuffer.withUnsafeMutableBytes { buffer in io.withLock { curl_easy_recv(easy, buffer.baseAddress! + count, buffer.count - count, &got) } }
            if code == CURLE_AGAIN {
                mayRead = false
                break
            }
            guard code == CURLE_OK, got > 0 else {
                socketEnded = true
                if code != CURLE_OK { lost = .connectionLost(host: host, port: port, underlying: curlError(code)) }
                break
            }
            count += got
        }
        // The bytes read before an end still count (the peer's close frame, then its FIN).
        let turn = readBuffer.withUnsafeBytes { bytes in
            channel.turn(received: UnsafeRawBufferPointer(rebasing: bytes[0..<count]), output: &output, written: &written)
        }
        wantsToRead = turn.wantsToRead
        if socketEnded { return end(channel, lost) }
        if turn.dropNow { return end(channel, nil) }
        let before = written
        var writeBlocked = false
        while written < output.count {
            var sent = 0
            let code = output.withUnsafeBytes { bytes in io.withLock { curl_easy_send(easy, bytes.baseAddress! + written, bytes.count - written, &sent) } }
            if code == CURLE_AGAIN {
                writeBlocked = true
                break
            }
            guard code == CURLE_OK else { return end(channel, .connectionLost(host: host, port: port, underlying: curlError(code))) }
            written += sent
        }
        if turn.dropWhenWritten, written == output.count { return end(channel, nil) }
        var events: Int16 = 0
        if wantsToRead, !mayRead {
            events |= Int16(CURL_WAIT_POLLIN)
            readWaitIndex = waits.count
        }
        if writeBlocked { events |= Int16(CURL_WAIT_POLLOUT) }
        if events != 0 { waits.append(curl_waitfd(fd: socket, events: events, revents: 0)) }
        // At once again when reads stopped short of an empty socket (or the reader made room
        // since), or when senders wait for the room just written.
        return (wantsToRead && mayRead) || (turn.writersWaiting && written > before) ? 0 : 1000
    }

    /// Ends the connection before it opened, answering the caller with `error`.
    private func fail(_ error: NetworkError) -> Int32? {
        answer(.failure(error))
        return end(nil)
    }

    /// Takes the handle out of its multi handle (which closes the connection) and tells the
    /// channel. Called once.
    private func end(_ channel: WebSocketChannel?, _ error: NetworkError? = nil) -> Int32? {
        phase = .finished
        io.withLock {
            socketOpen = false
            curl_multi_remove_handle(multi, handle.easy)
        }
        channel?.socketEnded(error)
        return nil
    }

    /// The loop is stopping: answers and ends.
    func shutDown() {
        if case .finished = phase { return }
        answer(.failure(.cancelled))
        _ = end(channel, .cancelled)
    }

    private func untilDeadline() -> Int32 {
        let left = deadline - ContinuousClock.now
        return Int32(clamping: max(1, min(1000, left.wholeMilliseconds)))
    }

    private func curlError(_ code: CURLcode) -> CurlError {
        CurlError(code: Int(code.rawValue), message: String(cString: curl_easy_strerror(code)))
    }

    private func connectFailure(_ code: CURLcode) -> NetworkError {
        var systemError = 0
        _ = courier_easy_get_long(handle.easy, CURLINFO_OS_ERRNO, &systemError)
        let generic = String(cString: curl_easy_strerror(code))
        let detail = handle.failureDetail.map { $0 == generic ? generic : "\(generic): \($0)" } ?? generic
        let error = CurlError(code: Int(code.rawValue), message: detail, systemErrorNumber: systemError)
        if let seen = handle.pinMismatch {
            let keys = seen.map(CertificatePinner.describe).joined(separator: ", ")
            return .securityError("certificate pinning failed for \(host): no pinned key in the chain; keys seen: \(keys)")
        }
        return NetworkError(curl: error, url: url)
    }

    /// Where the head's empty line ends in `bytes`, if it arrived.
    private static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count where bytes[index] == 0x0A && bytes[index - 1] == 0x0D && bytes[index - 2] == 0x0A && bytes[index - 3] == 0x0D {
            return index + 1
        }
        return nil
    }

    /// The Upgrade request's head: request line, `Host`, the request's fields.
    private static func head(of request: HTTPRequest) -> [UInt8] {
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        var target = components?.percentEncodedPath ?? "/"
        if target.isEmpty { target = "/" }
        if let query = components?.percentEncodedQuery { target += "?" + query }
        var host = components?.percentEncodedHost ?? ""
        if host.contains(":") { host = "[\(host)]" }
        if let port = components?.port { host += ":\(port)" }
        var text = "GET \(target) HTTP/1.1\r\n"
        if !request.headers.contains("Host") { text += "Host: \(host)\r\n" }
        for field in request.headers { text += "\(field.name): \(field.value)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }
}

/// libcurl's socket callback for a connecting WebSocket: which sockets to watch, for what.
private let webSocketSocketCallback: curl_socket_callback = { _, socket, what, context, _ in
    let connection = Unmanaged<CurlWebSocketConnection>.fromOpaque(context!).takeUnretainedValue()
    if what == Int32(CURL_POLL_REMOVE) {
        connection.connectSockets[socket] = nil
    } else {
        connection.connectSockets[socket] = what
    }
    return 0
}
#endif
