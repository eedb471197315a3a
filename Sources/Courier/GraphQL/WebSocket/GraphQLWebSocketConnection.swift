import Foundation

/// One GraphQL WebSocket shared by every subscription to an endpoint under one identity: it
/// owns the socket, its protocol (``GraphQLWebSocketMachine``) and the live subscriptions.
///
/// The first subscription starts a runner task that connects, sends `connection_init`,
/// subscribes every live subscription and reads the socket; after a drop it connects again
/// under the reconnection policy (waiting while the connectivity monitor says offline) and
/// subscribes them all again; an `UNAUTHENTICATED` error or a 4401/4403 close renews the token
/// through the token store (one refresh for every caller) and connects again. When the last
/// subscription ends the socket closes (after the linger). Frames go out through one writer
/// task per socket, so they leave in the order the actor made them.
actor GraphQLWebSocketConnection {
    /// What the connection needs from the client.
    struct Environment: Sendable {
        /// The handshake: a `GET` to the endpoint, through the client's chain.
        let request: HTTPRequest
        let requestOptions: RequestOptions
        /// The protocols offered, most wanted first.
        let protocols: [GraphQLWebSocketProtocol]
        let options: GraphQLWebSocketOptions
        let open: GraphQLWebSockets.Opener
        let clock: any TimeSource
        let random: any RandomSource
        /// The session's token store, when the client has one and the endpoint requires auth.
        let tokens: TokenStore.Handle?
        /// The connectivity monitor's view (never offline without a monitor).
        let connectivity: WebSocketConnectivity
    }

    /// How one connection ended, and what comes next.
    private enum End {
        /// No subscription is left (or the runner was cancelled): stop.
        case idle
        /// Connect again under the policy; the error is the one to throw when it gives up.
        case retry(NetworkError)
        /// Renew the credential of `version` and connect again.
        case renew(version: Int?, NetworkError)
        /// End every subscription with this error.
        case failed(NetworkError)
    }

    /// A frame for the writer task.
    private enum Outgoing: Sendable {
        case text(String)
        case close(UInt16, String)
    }

    private struct Subscriber {
        let payload: Data
        let continuation: AsyncStream<GraphQLWebSocketEvent>.Continuation
    }

    private let environment: Environment
    private var subscribers: [Int: Subscriber] = [:]
    private var nextID = 1
    private var runner: Task<Void, Never>?
    /// The socket of the current connection, its protocol, and its writer's queue.
    private var socket: WebSocket?
    private var machine: GraphQLWebSocketMachine?
    private var outgoing: AsyncStream<Outgoing>.Continuation?
    /// Counts connections: a timer acts only on the connection it was started for.
    private var generation = 0
    /// What a timer or the idle close decided for the current connection, read when its
    /// socket ends.
    private var interruption: End?
    /// The wait before an idle socket closes; cancelled at shutdown, so that it does not hold
    /// the connection for the rest of the linger.
    private var lingering: Task<Void, Never>?

    init(_ environment: Environment) {
        self.environment = environment
    }

    // MARK: Subscriptions

    /// Adds a subscription whose `subscribe` payload is `payload`; its events go to
    /// `continuation`. Returns its id.
    func add(payload: Data, continuation: AsyncStream<GraphQLWebSocketEvent>.Continuation) -> Int {
        let id = nextID
        nextID += 1
        subscribers[id] = Subscriber(payload: payload, continuation: continuation)
        // After the idle close went out the machine has ended: this one waits for the next
        // connection, which the runner makes since a subscription is live again.
        if machine != nil {
            perform(machine!.subscribe(id: String(id), payload: payload))
        }
        ensureRunner()
        return id
    }

    /// The consumer of `id` left (cancelled, or stopped iterating): `complete` goes to the
    /// server, and the socket closes when it was the last.
    func remove(_ id: Int) {
        guard subscribers.removeValue(forKey: id) != nil else { return }
        if machine != nil { perform(machine!.stop(id: String(id))) }
        closeWhenIdle()
    }

    /// Ends `id` (the server completed or failed it).
    private func finish(_ id: Int, _ error: NetworkError?) {
        guard let subscriber = subscribers.removeValue(forKey: id) else { return }
        if let error { subscriber.continuation.yield(.failed(error)) }
        subscriber.continuation.finish()
        closeWhenIdle()
    }

    /// Ends every subscription with `error`.
    private func endAll(_ error: NetworkError) {
        let ended = subscribers
        subscribers = [:]
        for (_, subscriber) in ended {
            subscriber.continuation.yield(.failed(error))
            subscriber.continuation.finish()
        }
    }

    /// Ends every subscription with ``NetworkError/cancelled`` and closes the socket; returns
    /// once the runner has stopped.
    func shutDown() async {
        lingering?.cancel()
        endAll(.cancelled)
        closeIfIdle(generation)
        await runner?.value
    }

    private func ensureRunner() {
        guard runner == nil else { return }
        runner = Task { await self.run() }
    }

    /// Closes the socket once no subscription is left, after the linger.
    private func closeWhenIdle() {
        guard subscribers.isEmpty else { return }
        let linger = environment.options.linger
        guard linger > .zero else { return closeIfIdle(generation) }
        let (clock, generation) = (environment.clock, generation)
        lingering?.cancel()
        lingering = Task {
            guard (try? await clock.sleep(for: linger)) != nil else { return }
            self.closeIfIdle(generation)
        }
    }

    private func closeIfIdle(_ generation: Int) {
        guard subscribers.isEmpty, generation == self.generation else { return }
        if machine != nil {
            interruption = .idle
            perform(machine!.terminate())
        } else {
            // Between connections (a backoff, a handshake, waiting to be online): stop there.
            runner?.cancel()
        }
    }

    // MARK: The runner

    private func run() async {
        var failures = 0
        var renewedSinceAcknowledgement = false
        loop: while !subscribers.isEmpty, !Task.isCancelled {
            await environment.connectivity.untilOnline()
            guard !subscribers.isEmpty, !Task.isCancelled else { break }
            let (end, acknowledged) = await connectOnce()
            if acknowledged { (failures, renewedSinceAcknowledgement) = (0, false) }
            switch end {
            case .idle:
                continue
            case .failed(let error):
                endAll(error)
            case .renew(let version, let error):
                // A renewed credential refused again before any acknowledgement: no loop.
                guard let tokens = environment.tokens, let version, !renewedSinceAcknowledgement else {
                    endAll(error)
                    break loop
                }
                renewedSinceAcknowledgement = true
                do {
                    _ = try await tokens.renewed(after: version)
                } catch {
                    endAll(error)
                }
            case .retry(let error):
                // Offline: the attempt is not counted; the loop waits to be online.
                if environment.connectivity.isOffline() { continue }
                failures += 1
                guard let delay = environment.options.reconnection.delay(
                    afterFailures: failures, randomUnit: environment.random.nextUnit())
                else {
                    endAll(error)
                    break loop
                }
                guard (try? await environment.clock.sleep(for: delay)) != nil else { break loop }
            }
        }
        runner = nil
        interruption = nil
        if Task.isCancelled, !subscribers.isEmpty { ensureRunner() }   // one came after the idle stop
    }


    /// One connection, from the handshake to its end; whether the server acknowledged it.
    private func connectOnce() async -> (End, acknowledged: Bool) {
        generation += 1
        interruption = nil
        var version: Int?
        var authorization: String?
        if let tokens = environment.tokens {
            do {
                let credential = try await tokens.current()
                (version, authorization) = (credential.version, credential.authorization)
            } catch {
                return (Task.isCancelled ? .idle : .failed(error), false)
            }
        }
        var socketOptions = environment.options.socket
        socketOptions.subprotocols = environment.protocols.map(\.rawValue)
        let socket: WebSocket
        do {
            socket = try await environment.open(environment.request, environment.requestOptions, socketOptions)
        } catch {
            if Task.isCancelled { return (.idle, false) }
            return (error.isRetryable ? .retry(error) : .failed(error), false)
        }
        guard !subscribers.isEmpty, !Task.isCancelled else {
            socket.close()
            return (.idle, false)
        }
        let kind = environment.protocols.first { $0.rawValue == socket.subprotocol }
            ?? (environment.protocols.count == 1 ? environment.protocols[0] : nil)
        guard let kind else {
            socket.close(.protocolError, reason: "no GraphQL subprotocol")
            return (.failed(.invalidResponse(
                "the server chose none of the GraphQL WebSocket subprotocols offered (\(socketOptions.subprotocols.joined(separator: ", ")))")), false)
        }
        let payload: Data
        do {
            payload = try await initPayload(authorization: authorization)
        } catch {
            socket.close()
            return (.failed(error), false)
        }
        guard !subscribers.isEmpty, !Task.isCancelled else {
            socket.close()
            return (.idle, false)
        }

        // The writer: frames leave in the order they were made.
        let (frames, outgoing) = AsyncStream<Outgoing>.makeStream()
        Task {
            for await frame in frames {
                switch frame {
                case .text(let text):
                    do { try await socket.send(.text(text)) } catch { return }
                case .close(let code, let reason):
                    socket.close(WebSocketCloseCode(rawValue: code), reason: reason)
                    return
                }
            }
        }
        self.socket = socket
        self.outgoing = outgoing
        let machine = GraphQLWebSocketMachine(kind: kind)
        self.machine = machine
        perform([machine.connectionInit(payload: payload)])
        for id in subscribers.keys.sorted() {
            perform(self.machine!.subscribe(id: String(id), payload: subscribers[id]!.payload))
        }
        let timers = startTimers()
        defer {
            timers.forEach { $0.cancel() }
            outgoing.finish()
            self.socket = nil
            self.machine = nil
            self.outgoing = nil
        }

        var acknowledged = false
        var end: End?
        do {
            for try await message in socket.messages {
                let actions: [GraphQLWebSocketMachine.Action]
                switch message {
                case .text(let text):
                    actions = self.machine?.received(text) ?? []
                case .binary:
                    actions = [.close(code: kind == .transportWS ? 4400 : 1003, reason: "Invalid message"),
                               .broken("the server sent a binary message")]
                }
                for action in actions {
                    switch action {
                    case .send, .close:
                        perform([action])
                    case .acknowledged:
                        acknowledged = true
                    case .result(let id, let payload):
                        if let id = Int(id) { subscribers[id]?.continuation.yield(.result(payload, socket.response)) }
                    case .failed(let id, let errors):
                        if let id = Int(id) {
                            finish(id, errors.isEmpty
                                ? .invalidResponse("the GraphQL server ended the subscription with an error")
                                : .graphQL(GraphQLFailure(errors: errors, data: nil, response: socket.response)))
                        }
                    case .completed(let id):
                        if let id = Int(id) { finish(id, nil) }
                    case .unauthenticated:
                        perform([.close(code: 1000, reason: "")])
                        end = .renew(version: version, .unauthorized(nil))
                    case .unresponsive:
                        end = .retry(.timeout(.attempt, underlying: nil))
                    case .broken(let reason):
                        end = .failed(.malformedResponse(reason, underlying: nil))
                    }
                }
                if end != nil { break }
            }
        } catch {
            if let interruption { return (interruption, acknowledged) }
            if Task.isCancelled { return (.idle, acknowledged) }
            return (error.isRetryable ? .retry(error) : .failed(error), acknowledged)
        }
        self.machine?.closed()
        if let end { return (end, acknowledged) }
        if let interruption { return (interruption, acknowledged) }
        // The server closed the socket.
        let code = socket.closeCode?.rawValue
        let reason = socket.closeReason ?? ""
        let said = "the GraphQL server closed the WebSocket" + (code.map { " with \($0)" } ?? "") + (reason.isEmpty ? "" : ": \(reason)")
        switch GraphQLWebSocketMachine.verdict(closeCode: code) {
        case .reconnect: return (.retry(.invalidResponse(said)), acknowledged)
        case .renewCredential: return (.renew(version: version, .unauthorized(nil)), acknowledged)
        case .fail: return (.failed(.invalidResponse(said)), acknowledged)
        }
    }

    /// The acknowledgement timer and, when configured, the keep-alive pings of this connection.
    private func startTimers() -> [Task<Void, Never>] {
        let (clock, generation, options) = (environment.clock, generation, environment.options)
        var timers = [Task {
            guard (try? await clock.sleep(for: options.acknowledgementTimeout)) != nil else { return }
            self.acknowledgementOverdue(generation)
        }]
        if let interval = options.keepAliveInterval, interval > .zero {
            timers.append(Task {
                while (try? await clock.sleep(for: interval)) != nil {
                    guard self.keepAliveDue(generation) else { return }
                }
            })
        }
        return timers
    }

    private func acknowledgementOverdue(_ generation: Int) {
        guard generation == self.generation, machine?.phase == .awaitingAcknowledgement, let socket else { return }
        let error = NetworkError.invalidResponse(
            "the GraphQL server did not acknowledge the connection (connection_ack) within \(environment.options.acknowledgementTimeout)")
        interruption = .retry(error)
        socket.close(WebSocketCloseCode(rawValue: 4504), reason: "Connection acknowledgement timeout")
        socket.abort(error)
    }

    /// Sends the keep-alive ping; false once the connection is over.
    private func keepAliveDue(_ generation: Int) -> Bool {
        guard generation == self.generation, machine != nil, let socket else { return false }
        let actions = machine!.keepAliveDue()
        if actions.contains(.unresponsive) {
            let error = NetworkError.timeout(.attempt, underlying: nil)
            interruption = .retry(error)
            socket.abort(error)
            return false
        }
        perform(actions)
        return true
    }

    private func perform(_ actions: [GraphQLWebSocketMachine.Action]) {
        for action in actions {
            switch action {
            case .send(let text): outgoing?.yield(.text(text))
            case .close(let code, let reason): outgoing?.yield(.close(code, reason))
            default: break
            }
        }
    }

    /// `connection_init`'s payload: the user's parameters, and the session's `Authorization`.
    private func initPayload(authorization: String?) async throws(NetworkError) -> Data {
        var params = try await environment.options.connectionParams?() ?? [:]
        if let authorization, params["Authorization"] == nil { params["Authorization"] = .string(authorization) }
        return try GraphQLRequestBody.canonicalJSON(params)
    }
}
