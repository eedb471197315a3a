import Foundation

/// When a dropped WebSocket connects again: a backoff (``BackoffStrategy``, as
/// ``RetryPolicy``'s) capped at ``maximumDelay``, with full jitter from the client's random
/// source, on the client's clock, for at most ``maxAttempts`` failures in a row.
///
/// ```swift
/// configuration.graphQL.webSocket.reconnection = WebSocketReconnection(
///     backoff: .exponential(base: .milliseconds(500), multiplier: 2), maximumDelay: .seconds(30), maxAttempts: nil)
/// ```
///
/// A connection that the server accepted (for GraphQL: acknowledged) resets the count. While
/// the client's connectivity monitor (``APIClient/Configuration/connectivity``) says offline,
/// no attempt is made and none is counted: the socket waits until it says online.
public struct WebSocketReconnection: Sendable, Equatable {
    /// The delay before attempt *n+1* after *n* failures in a row, before jitter and the cap.
    public var backoff: BackoffStrategy
    /// The cap on any delay. Default 30 s.
    public var maximumDelay: Duration
    /// Whether each delay is drawn uniformly from `0 ... delay` (full jitter), so that many
    /// clients dropped at once do not come back at once. Default `true`.
    public var jitter: Bool
    /// How many attempts in a row after a drop (or a failed first connection) are made before
    /// giving up (the subscriptions then throw the last failure); `nil` never gives up.
    /// Default 10.
    public var maxAttempts: Int?

    /// Creates a policy; every parameter has its documented default.
    public init(
        backoff: BackoffStrategy = .exponential(base: .milliseconds(500), multiplier: 2), maximumDelay: Duration = .seconds(30),
        jitter: Bool = true, maxAttempts: Int? = 10
    ) {
        self.backoff = backoff
        self.maximumDelay = maximumDelay
        self.jitter = jitter
        self.maxAttempts = maxAttempts.map { max(0, $0) }
    }

    /// Exponential from 0.5 s, ×2, capped at 30 s, jittered, up to 10 attempts in a row.
    public static let `default` = WebSocketReconnection()

    /// Never connects again: a drop ends the connection's subscriptions with its error.
    public static let never = WebSocketReconnection(backoff: .immediate, maxAttempts: 0)

    /// The wait before the next attempt after `failures` failures in a row (1 or more), or `nil`
    /// when the policy gives up. `randomUnit` is a uniform value in `0 ..< 1` (the jitter).
    func delay(afterFailures failures: Int, randomUnit: Double) -> Duration? {
        if let maxAttempts, failures > maxAttempts { return nil }
        return backoff.delay(afterAttempt: failures, cappedAt: maximumDelay, jitter: jitter, randomUnit: randomUnit)
    }
}
