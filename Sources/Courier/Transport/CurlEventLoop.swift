#if canImport(CCurl)
import CCurl
import Foundation

/// The thread that owns ``CurlTransport``'s libcurl multi handle: it adds, cancels and
/// completes every transfer, runs libcurl's callbacks, and waits in `curl_multi_poll`.
///
/// Callers never touch the multi handle: they configure a pooled easy handle, then queue an
/// ``Command`` and wake the loop (`curl_multi_wakeup`, the one multi call that is safe from any
/// thread) only when it sleeps. Answers go back through each exchange's continuation. Nothing
/// here waits on a task, and no task waits on this thread except through a continuation.
final class CurlEventLoop: @unchecked Sendable {
    // Invariant: `multi` and `attached` are used only on the loop's thread, and by `deinit`,
    // which runs after that thread has ended (its closure holds the loop until `run` returns);
    // `curl_multi_wakeup` may be called from any thread while the loop exists, which is why the
    // multi handle is freed in `deinit` and not when the thread ends. `state` only under its
    // lock.
    enum Command {
        case add(CurlEasyHandle)
        case cancel(CurlExchange)
        /// A streamed body's consumer caught up: the transfer reads again.
        case unpause(CurlExchange)
        /// A produced request body has bytes (or its end) again: the transfer sends again.
        case resumeSending(CurlExchange)
        /// A WebSocket to connect and then drive (``CurlWebSocketConnection``).
        case webSocket(CurlWebSocketConnection)
        /// A WebSocket has something to do (frames to write, room to read, an end).
        case nudge
    }

    private struct State {
        var commands: [Command] = []
        /// Easy handles not in use, for reuse (connections live in the multi handle, so any
        /// handle reaches any connection).
        var idle: [CurlEasyHandle] = []
        /// Whether the loop is in (or about to enter) `curl_multi_poll` with no command queued.
        var sleeping = false
        var stopping = false
    }

    private let multi: UnsafeMutableRawPointer
    private let state = Locked(State())
    /// The handles in the multi handle.
    private var attached: [ObjectIdentifier: CurlEasyHandle] = [:]
    /// The handles of streamed responses, whose head and stall timeouts the loop checks.
    private var streaming: [ObjectIdentifier: CurlEasyHandle] = [:]
    /// The WebSockets, each in a multi handle of its own; their sockets join the poll.
    private var webSockets: [ObjectIdentifier: CurlWebSocketConnection] = [:]
    /// The descriptors the WebSockets wait on, rebuilt each turn.
    private var waits: [curl_waitfd] = []

    init(configuration: CurlTransport.Configuration) {
        CurlEventLoop.initializeLibcurl
        multi = curl_multi_init()!
        let connections = configuration.connections
        _ = courier_multi_set_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(0, connections.maxPerHost))
        _ = courier_multi_set_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, max(0, connections.maxTotal))
        _ = courier_multi_set_long(multi, CURLMOPT_MAXCONNECTS, max(1, connections.maxIdle))
        _ = courier_multi_set_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        let thread = Thread { [self] in run() }
        thread.name = "courier.curl"
        thread.start()
    }

    /// `curl_global_init`, once per process, before the first handle.
    static let initializeLibcurl: Void = {
        _ = curl_global_init(Int(CURL_GLOBAL_ALL))
    }()

    /// A handle from the pool, or a new one; nil only if libcurl cannot make one.
    func takeHandle() -> CurlEasyHandle? {
        state.withLock { $0.idle.popLast() } ?? CurlEasyHandle()
    }

    /// Gives back a handle that was never added.
    func recycle(_ handle: CurlEasyHandle) {
        release(handle)
    }

    /// Queues `command` for the loop; wakes it if it sleeps. Returns `false` if the loop has
    /// stopped (the transport is gone).
    @discardableResult
    func submit(_ command: Command) -> Bool {
        let (accepted, wake) = state.withLock { state -> (Bool, Bool) in
            guard !state.stopping else { return (false, false) }
            state.commands.append(command)
            defer { state.sleeping = false }
            return (true, state.sleeping)
        }
        if wake { curl_multi_wakeup(multi) }
        return accepted
    }

    /// Ends the loop: transfers still queued or running are answered `cancelled` on the loop's
    /// thread, which then ends; libcurl's state goes with the loop object. Does not wait.
    func stop() {
        state.withLock { $0.stopping = true }
        curl_multi_wakeup(multi)
    }

    // MARK: The loop's thread

    private func run() {
        var running: Int32 = 0
        while true {
            let (commands, stopping) = state.withLock { state in
                defer { state.commands.removeAll(keepingCapacity: true) }
                return (state.commands, state.stopping)
            }
            for command in commands { handle(command) }
            if stopping { break }
            curl_multi_perform(multi, &running)
            completeFinishedTransfers()
            var wait = streaming.isEmpty ? 1000 : checkStreamTimeouts()
            waits.removeAll(keepingCapacity: true)
            if !webSockets.isEmpty { wait = min(wait, serviceWebSockets()) }
            let sleep = state.withLock { state -> Bool in
                state.sleeping = state.commands.isEmpty
                return state.sleeping
            }
            if sleep {
                // libcurl waits less when one of its own timers (a timeout) is due sooner.
                let count = UInt32(waits.count)
                waits.withUnsafeMutableBufferPointer { waits in
                    _ = curl_multi_poll(multi, count == 0 ? nil : waits.baseAddress, count, wait, nil)
                }
                if count != 0 { for connection in webSockets.values { connection.polled(waits) } }
            }
        }
        shutDown()
    }

    private func handle(_ command: Command) {
        switch command {
        case .webSocket(let connection):
            if connection.begin() { webSockets[ObjectIdentifier(connection)] = connection }
        case .nudge:
            break
        case .add(let handle):
            guard let exchange = handle.exchange, !exchange.isAnswered else {
                release(handle)
                return
            }
            exchange.handle = handle
            if curl_multi_add_handle(multi, handle.easy) != CURLM_OK {
                exchange.handle = nil
                exchange.answer(.failure(.unknown(underlying: CurlError(code: -1, message: "curl_multi_add_handle failed"))))
                release(handle)
                return
            }
            attached[ObjectIdentifier(handle)] = handle
            if exchange.stream != nil {
                let now = ContinuousClock.now
                exchange.headDeadline = now + exchange.headTimeout
                exchange.lastBytes = now
                streaming[ObjectIdentifier(handle)] = handle
            }
        case .cancel(let exchange):
            // Answered already (that is what cancelled it); the transfer only needs removing
            // (which closes its connection, the response being unfinished).
            guard let handle = exchange.handle else { return }
            exchange.stream?.finish(.cancelled)
            remove(handle)
        case .unpause(let exchange):
            guard let handle = exchange.handle, let stream = exchange.stream else { return }
            // The consumer's wait is not a stall of the server's.
            exchange.lastBytes = .now
            stream.resumed()
            // libcurl delivers the bytes it held back from inside this call.
            curl_easy_pause(handle.easy, exchange.sendPaused ? CURLPAUSE_SEND : CURLPAUSE_CONT)
        case .resumeSending(let exchange):
            guard let handle = exchange.handle, exchange.sendPaused else { return }
            exchange.sendPaused = false
            // A receive paused for a streamed body's consumer stays paused.
            curl_easy_pause(handle.easy, exchange.stream?.isPaused == true ? CURLPAUSE_RECV : CURLPAUSE_CONT)
        }
    }

    /// Moves every WebSocket's bytes and gathers the descriptors they wait on; returns the
    /// longest wait (milliseconds).
    private func serviceWebSockets() -> Int32 {
        var wait: Int32 = 1000
        for (key, connection) in webSockets {
            if let next = connection.service(&waits) {
                wait = min(wait, next)
            } else {
                webSockets[key] = nil
            }
        }
        return wait
    }

    /// Ends every streamed transfer whose head is late, or whose body has not moved for its
    /// stall timeout while not paused for its consumer; returns the milliseconds until the
    /// next of these deadlines (at most a second), for `curl_multi_poll`.
    private func checkStreamTimeouts() -> Int32 {
        let now = ContinuousClock.now
        var wait = Duration.seconds(1)
        for handle in Array(streaming.values) {
            guard let exchange = handle.exchange, let stream = exchange.stream else { continue }
            let due: ContinuousClock.Instant
            if !exchange.headEnded {
                due = exchange.headDeadline
            } else if stream.isPaused {
                continue
            } else {
                due = exchange.lastBytes + exchange.stallTimeout
            }
            if now >= due {
                exchange.complete(.failure(.timeout(.attempt, underlying: nil)))
                remove(handle)
            } else {
                wait = min(wait, due - now)
            }
        }
        return Int32(wait.wholeMilliseconds)
    }

    private func completeFinishedTransfers() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            var pointer: UnsafeMutableRawPointer?
            _ = courier_easy_get_pointer(easy, CURLINFO_PRIVATE, &pointer)
            guard let pointer else { continue }
            let handle = Unmanaged<CurlEasyHandle>.fromOpaque(pointer).takeUnretainedValue()
            guard let exchange = handle.exchange else { continue }
            exchange.complete(outcome(code, exchange, handle))
            remove(handle)
        }
    }

    /// The answer for a transfer that ended with `code`.
    private func outcome(_ code: CURLcode, _ exchange: CurlExchange, _ handle: CurlEasyHandle) -> Result<HTTPResponse, NetworkError> {
        if code == CURLE_OK {
            // libcurl ends a transfer whose connection closed before the head's empty line as
            // if the response were whole: a status line alone would answer 200, empty.
            guard exchange.headEnded else {
                return .failure(.malformedResponse("the connection closed before the end of the response head", underlying: nil))
            }
            return .success(exchange.response())
        }
        if let failure = exchange.failure { return .failure(failure) }
        var systemError = 0
        _ = courier_easy_get_long(handle.easy, CURLINFO_OS_ERRNO, &systemError)
        let error = CurlError(code: Int(code.rawValue), message: Self.message(code, handle), systemErrorNumber: systemError)
        let brokeOff = code == CURLE_RECV_ERROR || code == CURLE_SEND_ERROR || code == CURLE_OUT_OF_MEMORY
        if brokeOff, exchange.responseBegan || (code == CURLE_OUT_OF_MEMORY && error.message.contains("header")) {
            // Part of the response had arrived: the server was reached and its answer broke
            // off (a reset mid-body, or a framing error libcurl reports as a receive error,
            // such as a chunk size that is not hex, or as out of memory: a header line over
            // its 100 KB buffer).
            return .failure(.malformedResponse(error.message, underlying: error))
        }
        let url = Self.effectiveURL(handle.easy).flatMap { URL(string: $0) }
        if let seen = handle.pinMismatch {
            let host = url?.host ?? "the server"
            let keys = seen.map(CertificatePinner.describe).joined(separator: ", ")
            return .failure(.securityError("certificate pinning failed for \(host): no pinned key in the chain; keys seen: \(keys)"))
        }
        var proxyAnswer = 0
        _ = courier_easy_get_long(handle.easy, CURLINFO_HTTP_CONNECTCODE, &proxyAnswer)
        if brokeOff, proxyAnswer >= 300 {
            // The proxy refused the tunnel (libcurl reports a receive error): the server was
            // never reached, nothing was sent to it, and it is not the one that refused.
            let (host, port) = NetworkError.destination(of: url)
            return .failure(.cannotConnect(host: host, port: port, reason: .proxy, underlying: error))
        }
        return .failure(NetworkError(curl: error, url: url))
    }

    /// Takes `handle` out of the multi handle and back to the pool.
    private func remove(_ handle: CurlEasyHandle) {
        curl_multi_remove_handle(multi, handle.easy)
        attached[ObjectIdentifier(handle)] = nil
        streaming[ObjectIdentifier(handle)] = nil
        release(handle)
    }

    private func release(_ handle: CurlEasyHandle) {
        if let exchange = handle.exchange {
            curl_slist_free_all(exchange.headerList)
            exchange.headerList = nil
            exchange.handle = nil
        }
        handle.exchange = nil
        state.withLock { $0.idle.append(handle) }
    }

    /// Answers every transfer still queued or running with `cancelled` and takes it out of the
    /// multi handle; `deinit` frees libcurl's state.
    private func shutDown() {
        let queued = state.withLock { state in
            defer { state.commands.removeAll() }
            return state.commands
        }
        for case .webSocket(let connection) in queued { connection.shutDown() }
        for connection in webSockets.values { connection.shutDown() }
        webSockets = [:]
        for case .add(let handle) in queued {
            handle.exchange?.complete(.failure(.cancelled))
            release(handle)
        }
        for handle in attached.values {
            handle.exchange?.complete(.failure(.cancelled))
            remove(handle)
        }
    }

    /// Frees the multi handle first (it closes the connections, whose TLS set-up points into
    /// the easy handles), then the easy handles (the pool, released with `state`).
    deinit {
        curl_multi_cleanup(multi)
    }

    private static func message(_ code: CURLcode, _ handle: CurlEasyHandle) -> String {
        let generic = String(cString: curl_easy_strerror(code))
        guard let detail = handle.failureDetail, detail != generic else { return generic }
        return "\(generic): \(detail)"
    }

    private static func effectiveURL(_ easy: UnsafeMutableRawPointer) -> String? {
        var pointer: UnsafeMutableRawPointer?
        _ = courier_easy_get_pointer(easy, CURLINFO_EFFECTIVE_URL, &pointer)
        return pointer.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) }
    }
}
#endif
