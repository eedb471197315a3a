import CourierTesting
import Foundation
import Testing

@testable import Courier

/// `GraphQLWebSocketConnection`'s reconnection on the manual clock, with a handshake that
/// cannot connect: the policy's delays, its limit, and the connectivity monitor's offline.
@Suite(.timeLimit(.minutes(5))) struct GraphQLWebSocketConnectionTests {
    private static let refused = NetworkError.cannotConnect(host: "127.0.0.1", port: 9, reason: .refused, underlying: nil)

    private func connection(
        clock: ManualClock, reconnection: WebSocketReconnection, linger: Duration = .zero, connectivity: OfflineComponents? = nil,
        attempts: Locked<[Duration]>
    ) -> GraphQLWebSocketConnection {
        var options = GraphQLWebSocketOptions()
        options.reconnection = reconnection
        options.linger = linger
        return GraphQLWebSocketConnection(GraphQLWebSocketConnection.Environment(
            request: HTTPRequest(url: URL(string: "http://127.0.0.1:9/graphql")!), requestOptions: RequestOptions(),
            protocols: [.transportWS], options: options,
            open: { _, _, _ throws(NetworkError) in
                attempts.withLock { $0.append(clock.now) }
                throw Self.refused
            },
            clock: clock, random: SeededRandomSource(seed: 7), tokens: nil,
            connectivity: connectivity.map { offline in
                WebSocketConnectivity(
                    isOffline: { offline.connectivity.value == .offline }, untilOnline: { await offline.untilOnline() })
            } ?? .none))
    }

    @Test("each failed attempt waits the policy's delay on the clock; past maxAttempts the subscription throws the last failure")
    func backoffOnTheClock() async throws {
        let clock = ManualClock()
        let attempts = Locked<[Duration]>([])
        let connection = connection(
            clock: clock, reconnection: WebSocketReconnection(
                backoff: .exponential(base: .seconds(1), multiplier: 2), maximumDelay: .seconds(3), jitter: false, maxAttempts: 3),
            attempts: attempts)
        let (events, continuation) = AsyncStream<GraphQLWebSocketEvent>.makeStream()
        _ = await connection.add(payload: Data("{}".utf8), continuation: continuation)
        for delay in [Duration.seconds(1), .seconds(2), .seconds(3)] {
            await clock.waitForSleepers(1)
            #expect(clock.pendingDelays == [delay])
            clock.advance(by: delay)
        }
        var iterator = events.makeAsyncIterator()
        guard case .failed(.cannotConnect(_, _, .refused, _))? = await iterator.next() else {
            Issue.record("the subscription did not end with the connection's failure")
            return
        }
        #expect(await iterator.next() == nil)
        #expect(attempts.withLock { $0 } == [.zero, .seconds(1), .seconds(3), .seconds(6)])
    }

    @Test("while the monitor says offline no attempt is made; online, it connects")
    func waitsWhileOffline() async throws {
        let clock = ManualClock()
        let attempts = Locked<[Duration]>([])
        let offline = OfflineComponents(learnsFromRequests: false, hasQueue: false)
        offline.connectivity.publish(.offline)
        let connection = connection(clock: clock, reconnection: .never, connectivity: offline, attempts: attempts)
        let (events, continuation) = AsyncStream<GraphQLWebSocketEvent>.makeStream()
        _ = await connection.add(payload: Data("{}".utf8), continuation: continuation)
        // The runner now waits for a connectivity event.
        while !offline.connectivityEvents.hasSubscribers { await Task.yield() }
        #expect(attempts.withLock { $0 }.isEmpty)
        offline.connectivity.publish(.online)
        offline.connectivityEvents.publish(ConnectivityEvent(state: .online, source: .manual))
        var iterator = events.makeAsyncIterator()
        guard case .failed(.cannotConnect)? = await iterator.next() else {
            Issue.record("the subscription did not end with the connection's failure")
            return
        }
        #expect(attempts.withLock { $0 }.count == 1)
    }

    @Test("shutdown cancels the linger's wait: nothing is left sleeping on the clock")
    func shutdownCancelsTheLinger() async throws {
        let clock = ManualClock()
        let connection = connection(clock: clock, reconnection: .never, linger: .seconds(600), attempts: Locked([]))
        let (_, continuation) = AsyncStream<GraphQLWebSocketEvent>.makeStream()
        let id = await connection.add(payload: Data("{}".utf8), continuation: continuation)
        await connection.remove(id)
        await clock.waitForSleepers(1)
        #expect(clock.pendingDelays == [.seconds(600)])
        await connection.shutDown()
        #expect(clock.sleeperCount == 0)
    }
}
