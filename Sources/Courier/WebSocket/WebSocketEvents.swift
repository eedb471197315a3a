/// A WebSocket that connects again after a drop, as a sequence of ``WebSocketEvent``s: from
/// ``APIClient/webSocketEvents(_:options:reconnection:)``.
///
/// ```swift
/// for try await event in client.webSocketEvents(Endpoint<Data>(path: "chat")) {
///     switch event {
///     case .connected(let socket): try await socket.send(.text(#"{"join":"general"}"#))
///     case .message(let message): show(message)
///     case .dropped: showReconnecting()
///     }
/// }
/// ```
///
/// Runs in the task that iterates it; each iterator is its own connection. It connects at the
/// first `next()`, and after each drop waits under its ``WebSocketReconnection`` (the client's
/// clock and random source), and while the connectivity monitor says offline (no attempt, none
/// counted). A handshake the server accepted resets the count of failures in a row.
/// - Ends after the server's close with any other code than those of
///   ``WebSocketEvent/dropped(closeCode:error:)`` (1000 first of all), or after a close this
///   side started (``WebSocket/close(_:reason:)``).
/// - Throws the last failure when the policy gives up; a failure that retrying cannot mend
///   (`notFound`, `forbidden`, a handshake that breaks the protocol, an oversized message) at
///   once; ``NetworkError/cancelled`` when the iterating task is cancelled (the socket closes
///   with 1001).
public struct WebSocketEvents: AsyncSequence, Sendable {
    /// Each event.
    public typealias Element = WebSocketEvent
    /// Why the sequence stopped early.
    public typealias Failure = NetworkError

    /// Opens one connection (a handshake through the client's chain).
    typealias Opener = @Sendable () async throws(NetworkError) -> WebSocket

    let open: Opener
    let reconnection: WebSocketReconnection
    let connectivity: WebSocketConnectivity
    let clock: any TimeSource
    let random: any RandomSource

    /// A new connection's iterator.
    public func makeAsyncIterator() -> Iterator {
        Iterator(events: self)
    }

    /// Connects, reads, and connects again.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        private let events: WebSocketEvents
        private var socket: WebSocket?
        private var messages: WebSocket.Messages.Iterator?
        /// Whether the next connection comes back from a drop (it waits the policy's delay
        /// first), and the drop's failure if it was one (not a server's close).
        private var drop: NetworkError??
        /// Failed attempts since the last accepted handshake.
        private var failures = 0
        private var finished = false

        init(events: WebSocketEvents) {
            self.events = events
        }

        /// The next event; nil once the connection ended for good.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(NetworkError) -> WebSocketEvent? {
            try await next()
        }

        /// The next event; nil once the connection ended for good.
        public mutating func next() async throws(NetworkError) -> WebSocketEvent? {
            guard !finished else { return nil }
            do {
                guard let socket, let reading = messages else {
                    guard let socket = try await connect() else {
                        finished = true
                        return nil
                    }
                    (self.socket, messages) = (socket, socket.messages.makeAsyncIterator())
                    return .connected(socket)
                }
                return try await read(socket, reading)
            } catch {
                finished = true
                throw error
            }
        }

        /// The next message of `socket`, or how its connection ended.
        private mutating func read(_ socket: WebSocket, _ reading: WebSocket.Messages.Iterator) async throws(NetworkError) -> WebSocketEvent? {
            var reading = reading
            let ended: WebSocketEvent
            do {
                if let message = try await reading.next() {
                    messages = reading
                    return .message(message)
                }
                guard !socket.closedHere, let code = socket.closeCode, Self.comesBack(after: code) else {
                    finished = true
                    return nil
                }
                (drop, ended) = (.some(nil), .dropped(closeCode: code, error: nil))
            } catch {
                let cancelled = if case .cancelled = error { true } else { false }
                if socket.closedHere, !cancelled {
                    finished = true
                    return nil
                }
                guard error.isRetryable else { throw error }
                (drop, ended) = (.some(error), .dropped(closeCode: nil, error: error))
            }
            (self.socket, messages) = (nil, nil)
            return ended
        }

        /// Whether a server's close with `code` asks the client to come back.
        static func comesBack(after code: WebSocketCloseCode) -> Bool {
            [.goingAway, .internalServerError, .serviceRestart, .tryAgainLater, .badGateway].contains(code)
        }

        /// Connects, after the policy's delay when coming back from a drop; retries what
        /// retrying can mend, under the policy. Nil when the policy gives up after a server's
        /// close: that ends the sequence as the close would have.
        private mutating func connect() async throws(NetworkError) -> WebSocket? {
            if let drop {
                self.drop = nil
                if !events.connectivity.isOffline() {
                    guard try await backOff() else {
                        if let failure = drop { throw failure }
                        return nil
                    }
                }
            }
            while true {
                await events.connectivity.untilOnline()
                if Task.isCancelled { throw .cancelled }
                do {
                    let socket = try await events.open()
                    failures = 0
                    return socket
                } catch {
                    guard error.isRetryable, !Task.isCancelled else { throw error }
                    // Offline: the attempt is not counted; the loop waits to be online.
                    if events.connectivity.isOffline() { continue }
                    guard try await backOff() else { throw error }
                }
            }
        }

        /// Counts a failure and waits the policy's delay; false when the policy gives up.
        private mutating func backOff() async throws(NetworkError) -> Bool {
            failures += 1
            guard let delay = events.reconnection.delay(afterFailures: failures, randomUnit: events.random.nextUnit()) else {
                return false
            }
            do {
                try await events.clock.sleep(for: delay)
            } catch {
                throw .cancelled
            }
            return true
        }
    }
}
