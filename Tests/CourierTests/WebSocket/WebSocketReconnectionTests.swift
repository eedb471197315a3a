import Foundation
import Testing

@testable import Courier

/// `WebSocketReconnection`'s decision: the delay after n failures in a row, or giving up.
@Suite struct WebSocketReconnectionTests {
    @Test("without jitter: the backoff's delays, capped; nil past maxAttempts")
    func delaysAndLimit() {
        let policy = WebSocketReconnection(
            backoff: .exponential(base: .seconds(1), multiplier: 2), maximumDelay: .seconds(5), jitter: false, maxAttempts: 4)
        let delays = (1...5).map { policy.delay(afterFailures: $0, randomUnit: 0.5) }
        #expect(delays == [.seconds(1), .seconds(2), .seconds(4), .seconds(5), nil])
    }

    @Test("full jitter: the delay scaled by the random unit, never negative nor past the cap")
    func fullJitter() {
        let policy = WebSocketReconnection(backoff: .constant(.seconds(8)), maximumDelay: .seconds(4), maxAttempts: nil)
        #expect(policy.delay(afterFailures: 1, randomUnit: 0) == .zero)
        #expect(policy.delay(afterFailures: 1, randomUnit: 0.25) == .seconds(1))
        #expect(policy.delay(afterFailures: 1, randomUnit: 7) == .seconds(4))
        #expect(policy.delay(afterFailures: 1, randomUnit: -1) == .zero)
    }

    @Test("nil maxAttempts never gives up; never gives up at once; the default is bounded")
    func limits() {
        let forever = WebSocketReconnection(maxAttempts: nil)
        #expect(forever.delay(afterFailures: 10_000, randomUnit: 1) == .seconds(30))
        #expect(WebSocketReconnection.never.delay(afterFailures: 1, randomUnit: 0.5) == nil)
        #expect(WebSocketReconnection.default.delay(afterFailures: 10, randomUnit: 1) != nil)
        #expect(WebSocketReconnection.default.delay(afterFailures: 11, randomUnit: 1) == nil)
        #expect(WebSocketReconnection(maxAttempts: -3).maxAttempts == 0)
    }
}
