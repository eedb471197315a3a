import Foundation

/// When and how long to wait before trying a failed request again.
///
/// Besides attempts, retryable statuses and a backoff, it closes the gaps users of Alamofire and
/// OkHttp hit: 429 and 503 honour `Retry-After` (seconds or HTTP-date, clamped
/// to ``maximumDelay``); delays get full jitter from an injected random source; only idempotent
/// methods are retried unless the request carries an `Idempotency-Key` header; transport errors
/// are retried only when they are safe (a timeout, no connection, a connection lost before a
/// response). A server that refused the connection or could not be reached is retried whatever
/// the method, since nothing was sent; a name that does not resolve or a failed TLS handshake
/// is not retried (the next attempt would fail the same way).
/// A ``RetryBudget`` in the pipeline caps retries across requests so a failing upstream does not
/// get a retry storm.
public struct RetryPolicy: Sendable, Equatable {
    /// Total attempts, the first included (1 = never retry).
    public var maxAttempts: Int
    /// Response statuses worth another attempt.
    public var retryableStatusCodes: Set<Int>
    /// The delay before attempt *n+1*, before jitter and the cap.
    public var backoff: BackoffStrategy
    /// Whether to randomise each delay uniformly in `0 ... delay` (full jitter). Default `true`.
    public var jitter: Bool
    /// The cap on any delay, `Retry-After` included. Default 30 s.
    public var maximumDelay: Duration
    /// Whether `Retry-After` on 429/503 replaces the backoff delay. Default `true`.
    public var honoursRetryAfter: Bool

    /// Creates a policy.
    public init(
        maxAttempts: Int,
        retryableStatusCodes: Set<Int>,
        backoff: BackoffStrategy,
        jitter: Bool = true,
        maximumDelay: Duration = .seconds(30),
        honoursRetryAfter: Bool = true
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.retryableStatusCodes = retryableStatusCodes
        self.backoff = backoff
        self.jitter = jitter
        self.maximumDelay = maximumDelay
        self.honoursRetryAfter = honoursRetryAfter
    }

    /// 3 attempts; 408, 429, 500, 502, 503, 504; exponential from 1 s, ×2.
    public static let `default` = RetryPolicy(
        maxAttempts: 3, retryableStatusCodes: [408, 429, 500, 502, 503, 504],
        backoff: .exponential(base: .seconds(1), multiplier: 2))

    /// One attempt, never retried. (Named so that it cannot be mistaken for `Optional.none`
    /// where a policy is optional, as in ``RequestOptions/retryPolicy``.)
    public static let never = RetryPolicy(maxAttempts: 1, retryableStatusCodes: [], backoff: .immediate)

    /// 5 attempts; the default statuses plus Cloudflare's 520–524; exponential from 0.5 s, ×1.5.
    public static let aggressive = RetryPolicy(
        maxAttempts: 5, retryableStatusCodes: [408, 429, 500, 502, 503, 504, 520, 521, 522, 523, 524],
        backoff: .exponential(base: .milliseconds(500), multiplier: 1.5))

    /// How one attempt ended, as far as retrying is concerned.
    enum AttemptOutcome: Sendable {
        /// The server answered with this response.
        case response(HTTPResponse)
        /// No response: the transport failed with this error.
        case failure(NetworkError)
    }

    /// The verdict on one finished attempt.
    enum Decision: Sendable, Equatable {
        /// Try again after this delay; `reason` says why, for events and logs.
        case retry(after: Duration, reason: String)
        /// Stop; the outcome is final.
        case stop
    }

    /// Decides whether attempt number `attempt` (1-based) of `request`, which ended with
    /// `outcome`, is tried again and after how long.
    /// - Parameters:
    ///   - now: the wall-clock date, to read `Retry-After` HTTP-dates.
    ///   - randomUnit: a uniform value in `0 ..< 1` for jitter.
    func decide(
        attempt: Int, request: HTTPRequest, isRead: Bool = false, outcome: AttemptOutcome, now: Date, randomUnit: Double
    ) -> Decision {
        guard attempt < maxAttempts else { return .stop }
        // A connection never made sent nothing: any method may be tried again.
        let sentNothing = if case .failure(.cannotConnect) = outcome { true } else { false }
        guard sentNothing || isRead || request.method.isIdempotent || request.headers.contains("Idempotency-Key") else { return .stop }
        // A body that can be read only once is gone after the first attempt.
        guard request.bodyStream?.isReopenable != false else { return .stop }
        let reason: String
        switch outcome {
        case .response(let response):
            guard retryableStatusCodes.contains(response.status) else { return .stop }
            reason = "status \(response.status)"
            if honoursRetryAfter, let wait = Self.retryAfter(in: response, now: now) {
                return .retry(after: min(wait, maximumDelay), reason: reason + ", Retry-After \(response.headers["Retry-After"] ?? "")")
            }
        case .failure(let error):
            switch error {
            case .timeout: reason = "timeout"
            case .noConnection: reason = "no connection"
            case .cannotConnect(let host, let port, let failure, _) where failure.isTransient:
                reason = "cannot connect to \(NetworkError.hostAndPort(host, port)) (\(failure))"
            case .connectionLost: reason = "connection lost"
            case .malformedResponse: reason = "malformed response"
            default: return .stop
            }
        }
        return .retry(after: backoff.delay(afterAttempt: attempt, cappedAt: maximumDelay, jitter: jitter, randomUnit: randomUnit), reason: reason)
    }

    /// The wait a 429 or 503 `response` asks for with its `Retry-After`, unclamped; `nil` for
    /// other statuses or without a readable value. (The offline queue's backoff uses it too.)
    static func retryAfter(in response: HTTPResponse, now: Date) -> Duration? {
        guard response.status == 429 || response.status == 503, let header = response.headers["Retry-After"] else { return nil }
        return retryAfter(header, now: now)
    }

    /// Parses a `Retry-After` value: delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
    /// Returns `nil` for anything else; a date in the past means no wait.
    static func retryAfter(_ value: String, now: Date) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            // Digits only (RFC 9110); a number too large for Int is "very long", clamped later.
            return .seconds(Int64(trimmed) ?? Int64(1e9))
        }
        guard let date = HTTPDate.parse(trimmed) else { return nil }
        let interval = date.timeIntervalSince(now)
        return interval > 0 ? .milliseconds(Int64((interval * 1000).rounded(.up))) : .zero
    }
}
