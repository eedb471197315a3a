import Foundation

/// An open WebSocket (RFC 6455), from ``APIClient/webSocket(_:options:)``.
///
/// ```swift
/// let socket = try await client.webSocket(Endpoint<Data>(path: "chat"))
/// try await socket.send(.text("hello"))
/// for try await message in socket.messages { print(message) }
/// ```
///
/// - Messages arrive whole (fragments joined, text checked as UTF-8) through ``messages``,
///   read by one task at a time, only as fast as it reads them: past
///   ``WebSocketOptions/receiveBufferSize`` the socket is not read.
/// - ``send(_:)`` waits while ``WebSocketOptions/sendBufferSize`` bytes are not yet on the wire.
/// - Pings are answered; with ``WebSocketOptions/pingInterval`` the socket also pings and fails
///   when a pong does not come back.
/// - ``close(_:reason:)`` runs the close handshake; the server's own close ends ``messages``
///   (``closeCode`` and ``closeReason`` say with what). Cancelling the task that reads
///   ``messages`` closes the socket (1001). Dropping the last reference closes it too.
/// - A server that breaks the protocol gets a close with 1002, 1007 (text that is not UTF-8) or
///   1009 (over ``WebSocketOptions/maxFrameSize`` or ``WebSocketOptions/maxMessageSize``), and
///   ``messages`` throws.
public final class WebSocket: Sendable {
    /// The server's answer to the handshake: a 101, its header fields.
    public let response: HTTPResponse
    /// The subprotocol the server chose among ``WebSocketOptions/subprotocols``; nil if none.
    public let subprotocol: String?

    private let backend: any WebSocketBackend
    private let clock: any TimeSource
    private let closeTimeout: Duration
    /// The keep-alive and close timers, cancelled when the connection ends.
    private let timers = Locked<[Task<Void, Never>]>([])
    /// Whether this side started the close handshake (a reconnecting socket then stops).
    private let closing = Locked(false)
    /// Whether the connection is over (the backend said so).
    private let ended = Locked(false)

    init(response: HTTPResponse, subprotocol: String?, backend: any WebSocketBackend, options: WebSocketOptions,
         clock: any TimeSource, random: any RandomSource) {
        self.response = response
        self.subprotocol = subprotocol
        self.backend = backend
        self.clock = clock
        closeTimeout = options.closeTimeout
        backend.useRandom(random)
        if let interval = options.pingInterval, interval > .zero {
            startTimer { [backend] in
                while !Task.isCancelled {
                    guard (try? await clock.sleep(for: interval)) != nil else { return }
                    if !backend.ping() {
                        // The previous pong never came (or the socket is over: then this is moot).
                        backend.abort(.timeout(.attempt, underlying: nil))
                        return
                    }
                }
            }
        }
        let (timers, ended) = (self.timers, self.ended)
        backend.onEnd {
            ended.withLock { $0 = true }
            timers.withLock { $0 }.forEach { $0.cancel() }
        }
    }

    deinit {
        // A connection that is over needs neither a close nor its timeout.
        guard !ended.withLock({ $0 }) else { return }
        backend.close(code: .goingAway, reason: "")
        let backend = self.backend
        let (clock, timeout) = (self.clock, closeTimeout)
        // The peer gets its close timeout; then the socket is dropped whatever it answered.
        Task { if (try? await clock.sleep(for: timeout)) != nil { backend.abort(.cancelled) } }
    }

    /// The messages from the server, in order, one task reading at a time. Ends after the
    /// close handshake; throws when the connection fails (``NetworkError/connectionLost(host:port:underlying:)``,
    /// ``NetworkError/timeout(_:underlying:)`` for a dead peer, ``NetworkError/malformedResponse(_:underlying:)``
    /// or ``NetworkError/responseTooLarge(limit:)`` for a peer that broke the protocol) and
    /// ``NetworkError/cancelled`` when the reading task is cancelled (the socket then closes).
    public var messages: Messages { Messages(socket: self) }

    /// Sends a message, after the ones sent before it; waits while the send buffer is full.
    /// - Throws: ``NetworkError/invalidRequest(_:)`` once the socket is closing, the
    ///   connection's failure once it failed, ``NetworkError/cancelled``.
    public func send(_ message: WebSocketMessage) async throws(NetworkError) {
        try await backend.send(message)
    }

    /// Starts the close handshake with `code` and `reason` (at most 123 bytes of UTF-8; longer
    /// is cut); ``messages`` ends when the server answers, or the socket is dropped after
    /// ``WebSocketOptions/closeTimeout``. Closing again does nothing.
    public func close(_ code: WebSocketCloseCode = .normalClosure, reason: String = "") {
        closing.withLock { $0 = true }
        backend.close(code: code.isSendable ? code : .normalClosure, reason: reason)
        let (backend, clock, timeout) = (self.backend, self.clock, closeTimeout)
        startTimer {
            if (try? await clock.sleep(for: timeout)) != nil {
                backend.abort(.timeout(.attempt, underlying: nil))
            }
        }
    }

    /// The code of the server's close frame, once it arrived (nil before, or when it had none).
    public var closeCode: WebSocketCloseCode? { backend.closeStatus?.code }
    /// The reason in the server's close frame, once it arrived.
    public var closeReason: String? { backend.closeStatus?.reason }

    /// Whether ``close(_:reason:)`` was called: the end, whatever the server answers, is ours.
    var closedHere: Bool { closing.withLock { $0 } }

    /// Ends the connection now: the reader gets `error` (a dead peer, a protocol's timeout).
    func abort(_ error: NetworkError) {
        backend.abort(error)
    }

    func receive() async throws(NetworkError) -> WebSocketMessage? {
        do {
            return try await backend.receive()
        } catch .cancelled {
            // The channel queued a 1001 close; this starts its timeout.
            close(.goingAway)
            throw .cancelled
        }
    }

    private func startTimer(_ body: @escaping @Sendable () async -> Void) {
        let task = Task { await body() }
        timers.withLock { $0.append(task) }
    }

    /// The messages of a ``WebSocket``, as an `AsyncSequence` that throws ``NetworkError``.
    public struct Messages: AsyncSequence, Sendable {
        /// Each message.
        public typealias Element = WebSocketMessage
        /// The connection's failure.
        public typealias Failure = NetworkError

        let socket: WebSocket

        /// An iterator over the messages.
        public func makeAsyncIterator() -> Iterator {
            Iterator(socket: socket)
        }

        /// Reads the next message.
        public struct Iterator: AsyncIteratorProtocol, Sendable {
            let socket: WebSocket

            /// The next message; nil after the close handshake.
            public mutating func next(isolation actor: isolated (any Actor)?) async throws(NetworkError) -> WebSocketMessage? {
                try await socket.receive()
            }

            /// The next message; nil after the close handshake.
            public mutating func next() async throws(NetworkError) -> WebSocketMessage? {
                try await socket.receive()
            }
        }
    }
}
