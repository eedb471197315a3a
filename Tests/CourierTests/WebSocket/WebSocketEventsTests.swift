#if canImport(CCurl)
import CourierTesting
import Foundation
import Testing
@testable import Courier

/// `client.webSocketEvents`: a WebSocket that connects again after a drop, against
/// `websocket_peer.py` for what the server does, and against a handshake that cannot connect
/// for the policy's delays, its limit and the connectivity monitor's offline.
@Suite(.timeLimit(.minutes(5))) struct WebSocketEventsTests {
    private static let refused = NetworkError.cannotConnect(host: "127.0.0.1", port: 9, reason: .refused, underlying: nil)
    /// Options whose close timeout a loaded machine does not reach (not what these tests check).
    private static let patient = { var options = WebSocketOptions(); options.closeTimeout = .seconds(120); return options }()
    private static let quick = WebSocketReconnection(
        backoff: .exponential(base: .seconds(1), multiplier: 2), maximumDelay: .seconds(3), jitter: false, maxAttempts: 3)

    /// One line per event, to compare sequences.
    private static func describe(_ event: WebSocketEvent) -> String {
        switch event {
        case .connected: "connected"
        case .message(.text(let text)): "text \(text)"
        case .message(.binary(let data)): "binary \(data.count)"
        case .dropped(let code?, nil): "dropped \(code.rawValue)"
        case .dropped(nil, .connectionLost?): "dropped connectionLost"
        case .dropped(let code, let error): "dropped \(String(describing: code)) \(String(describing: error))"
        }
    }

    /// The first `count` events of `events`, or fewer if it ends.
    private static func first(_ count: Int, of events: WebSocketEvents) -> Task<[String], any Error> {
        Task {
            var seen: [String] = []
            var iterator = events.makeAsyncIterator()
            while seen.count < count, let event = try await iterator.next() { seen.append(describe(event)) }
            return seen
        }
    }

    @Test("a dropped connection comes back after the policy's delay; an accepted handshake resets the count")
    func dropThenReconnect() async throws {
        try await withWebSocketPeer { peer in
            let clock = ManualClock()
            let api = client(peer.baseURL, retryPolicy: .never, clock: clock)
            let events = api.webSocketEvents(url: peer.url("/drop", id: "drop"), options: Self.patient, reconnection: Self.quick)
            let seen = Self.first(7, of: events)
            for _ in 0..<2 {
                await clock.waitForSleepers(1)
                #expect(clock.pendingDelays == [.seconds(1)])
                clock.advance(by: .seconds(1))
            }
            let values = try await seen.value
            #expect(values == [
                "connected", "text bye", "dropped connectionLost", "connected", "text bye", "dropped connectionLost", "connected",
            ])
            #expect(try await peer.log("drop").filter { $0.event == "request" }.count == 3)
            await api.shutdown()
        }
    }

    @Test("a server's close asking to come back (1012 service restart) reconnects; its code is in the event")
    func serviceRestart() async throws {
        try await withWebSocketPeer { peer in
            let clock = ManualClock()
            let api = client(peer.baseURL, retryPolicy: .never, clock: clock)
            let events = api.webSocketEvents(url: peer.url("/close?code=1012&reason=restart", id: "restart"), options: Self.patient, reconnection: Self.quick)
            let seen = Self.first(3, of: events)
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(1))
            let values = try await seen.value
            #expect(values == ["connected", "dropped 1012", "connected"])
            await api.shutdown()
        }
    }

    @Test("a server's normal close (1000) ends the sequence: no reconnection")
    func normalCloseEnds() async throws {
        try await withWebSocketPeer { peer in
            let api = client(peer.baseURL, retryPolicy: .never)
            let events = api.webSocketEvents(url: peer.url("/text-then-close", id: "done"), options: Self.patient, reconnection: Self.quick)
            let values = try await Self.first(10, of: events).value
            #expect(values == ["connected", "text one", "text two"])
            #expect(try await peer.log("done").filter { $0.event == "request" }.count == 1)
            await api.shutdown()
        }
    }

    @Test("a close this side starts ends the sequence, whatever code it carries")
    func ownCloseEnds() async throws {
        try await withWebSocketPeer { peer in
            let api = client(peer.baseURL, retryPolicy: .never)
            var iterator = api.webSocketEvents(url: peer.url("/echo", id: "own"), options: Self.patient, reconnection: Self.quick).makeAsyncIterator()
            guard case .connected(let socket)? = try await iterator.next() else { Issue.record("no connection"); return }
            try await socket.send(.text("hi"))
            #expect(try await iterator.next().map(Self.describe) == "text hi")
            socket.close(.goingAway, reason: "leaving")
            #expect(try await iterator.next() == nil)
            #expect(try await iterator.next() == nil)
            #expect(try await peer.log("own", waitingFor: "close").last?.code == 1001)
            await api.shutdown()
        }
    }

    @Test("cancelling the iterating task closes the socket with 1001 and throws cancelled")
    func cancelReader() async throws {
        try await withWebSocketPeer { peer in
            let api = client(peer.baseURL, retryPolicy: .never)
            let events = api.webSocketEvents(url: peer.url("/echo", id: "cancel"), options: Self.patient, reconnection: Self.quick)
            let (connected, report) = AsyncStream<Void>.makeStream()
            let reader = Task { () async -> NetworkError? in
                do throws(NetworkError) {
                    for try await event in events {
                        if case .connected = event { report.yield() }
                    }
                    return nil
                } catch {
                    return error
                }
            }
            // Cancelled while reading messages: a cancelled handshake has no close to send.
            var iterator = connected.makeAsyncIterator()
            _ = await iterator.next()
            reader.cancel()
            guard case .cancelled? = await reader.value else { Issue.record("the reader did not end cancelled"); return }
            let log = try await peer.log("cancel", waitingFor: "close")
            #expect(log.last?.code == 1001)
            await api.shutdown()
        }
    }

    // MARK: A handshake that cannot connect

    private func events(
        clock: ManualClock, reconnection: WebSocketReconnection, failure: NetworkError = refused,
        connectivity: OfflineComponents? = nil, attempts: Locked<[Duration]>
    ) -> WebSocketEvents {
        WebSocketEvents(
            open: { () throws(NetworkError) in
                attempts.withLock { $0.append(clock.now) }
                throw failure
            },
            reconnection: reconnection,
            connectivity: connectivity.map { offline in
                WebSocketConnectivity(isOffline: { offline.connectivity.value == .offline }, untilOnline: { await offline.untilOnline() })
            } ?? .none,
            clock: clock, random: SeededRandomSource(seed: 7))
    }

    /// What the first `next()` throws.
    private static func failure(of events: WebSocketEvents) -> Task<NetworkError?, Never> {
        Task {
            var iterator = events.makeAsyncIterator()
            do throws(NetworkError) {
                _ = try await iterator.next()
                return nil
            } catch {
                return error
            }
        }
    }

    @Test("failed attempts wait the policy's delays on the clock; past maxAttempts the last failure is thrown")
    func givesUp() async throws {
        let clock = ManualClock()
        let attempts = Locked<[Duration]>([])
        let failure = Self.failure(of: events(clock: clock, reconnection: Self.quick, attempts: attempts))
        for delay in [Duration.seconds(1), .seconds(2), .seconds(3)] {
            await clock.waitForSleepers(1)
            #expect(clock.pendingDelays == [delay])
            clock.advance(by: delay)
        }
        guard case .cannotConnect(_, _, .refused, _)? = await failure.value else { Issue.record("not the connection's failure"); return }
        #expect(attempts.withLock { $0 } == [.zero, .seconds(1), .seconds(3), .seconds(6)])
    }

    @Test("a failure retrying cannot mend is thrown at once")
    func permanentFailure() async throws {
        let clock = ManualClock()
        let attempts = Locked<[Duration]>([])
        let failure = Self.failure(of: events(
            clock: clock, reconnection: Self.quick, failure: .invalidResponse("not a WebSocket"), attempts: attempts))
        guard case .invalidResponse? = await failure.value else { Issue.record("not the handshake's failure"); return }
        #expect(attempts.withLock { $0 }.count == 1)
    }

    @Test("while the monitor says offline no attempt is made and none counted; online, it connects")
    func waitsWhileOffline() async throws {
        let clock = ManualClock()
        let attempts = Locked<[Duration]>([])
        let offline = OfflineComponents(learnsFromRequests: false, hasQueue: false)
        offline.connectivity.publish(.offline)
        let failure = Self.failure(of: events(clock: clock, reconnection: .never, connectivity: offline, attempts: attempts))
        while !offline.connectivityEvents.hasSubscribers { await Task.yield() }
        #expect(attempts.withLock { $0 }.isEmpty)
        offline.connectivity.publish(.online)
        offline.connectivityEvents.publish(ConnectivityEvent(state: .online, source: .manual))
        guard case .cannotConnect? = await failure.value else { Issue.record("not the connection's failure"); return }
        #expect(attempts.withLock { $0 }.count == 1)
    }
}
#endif
