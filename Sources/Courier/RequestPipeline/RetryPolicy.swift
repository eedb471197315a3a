import Foundation

/// When and how long to wait before trying a failed request again.
///
/// Beyond the seeds' presets (attempts, retryable statuses, backoff), it closes the gaps users
/// of Alamofire and OkHttp hit: 429 and 503 honour `Retry-After` (seconds or HTTP-date, clamped
/// to ``maximumDelay``); delays get full jitter from an injected random source; only idempotent
/// methods are retried unless the request carries an `Idempotency-Key` header; transport errors
/// are retried only when they are safe (a timeout, or no connection before a response).
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

    /// One attempt, never retried.
    public static let none = RetryPolicy(maxAttempts: 1, retryableStatusCodes: [], backoff: .none)

    /// 5 attempts; the default statuses plus Cloudflare's 520–524; exponential from 0.5 s, ×1.5.
    public static let aggressive = RetryPolicy(
        maxAttempts: 5, retryableStatusCodes: [408, 429, 500, 502, 503, 504, 520, 521, 522, 523, 524],
        backoff: .exponential(base: .milliseconds(500), multiplier: 1.5))

    /// How one attempt ended, as far as retrying is concerned.
    public enum AttemptOutcome: Sendable {
        /// The server answered with this response.
        case response(HTTPResponse)
        /// No response: the transport failed with this error.
        case failure(NetworkError)
    }

    /// The verdict on one finished attempt.
    public enum Decision: Sendable, Equatable {
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
    public func decide(
        attempt: Int, request: HTTPRequest, outcome: AttemptOutcome, now: Date, randomUnit: Double
    ) -> Decision {
        guard attempt < maxAttempts else { return .stop }
        guard request.method.isIdempotent || request.headers.contains("Idempotency-Key") else { return .stop }
        let reason: String
        switch outcome {
        case .response(let response):
            guard retryableStatusCodes.contains(response.status) else { return .stop }
            reason = "status \(response.status)"
            if honoursRetryAfter, response.status == 429 || response.status == 503,
               let header = response.headers["Retry-After"],
               let wait = Self.retryAfter(header, now: now) {
                return .retry(after: min(wait, maximumDelay), reason: reason + ", Retry-After \(header)")
            }
        case .failure(let error):
            switch error {
            case .timeout: reason = "timeout"
            case .noConnection: reason = "no connection"
            default: return .stop
            }
        }
        // Never negative, whatever the strategy's parameters.
        var delay = max(.zero, min(backoff.delay(afterAttempt: attempt), maximumDelay))
        if jitter { delay = delay * min(max(randomUnit, 0), 1) }
        return .retry(after: delay, reason: reason)
    }

    /// Parses a `Retry-After` value: delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
    /// Returns `nil` for anything else; a date in the past means no wait.
    public static func retryAfter(_ value: String, now: Date) -> Duration? {
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

/// The delay between attempts, before jitter and the policy's cap.
public enum BackoffStrategy: Sendable, Equatable {
    /// Retry at once.
    case none
    /// The same delay every time.
    case constant(Duration)
    /// `base + increment × (attempt − 1)`.
    case linear(base: Duration, increment: Duration)
    /// `base × multiplier^(attempt − 1)`.
    case exponential(base: Duration, multiplier: Double)

    /// The delay after attempt number `attempt` (1-based) failed.
    public func delay(afterAttempt attempt: Int) -> Duration {
        let step = max(0, attempt - 1)
        switch self {
        case .none: return .zero
        case .constant(let delay): return delay
        case .linear(let base, let increment): return base + increment * step
        case .exponential(let base, let multiplier):
            // Computed in seconds and clamped (to ~31 years) so a large step cannot overflow
            // Duration; the policy's maximumDelay caps it far lower anyway.
            let seconds = base.inSeconds * pow(multiplier, Double(step))
            // NaN (a NaN or infinite multiplier) or a negative value means no usable delay.
            guard seconds.isFinite || seconds == .infinity else { return .zero }
            return .seconds(max(0, min(seconds, 1e9)))
        }
    }
}

/// HTTP-date parsing (RFC 9110 §5.6.7): IMF-fixdate, plus the obsolete RFC 850 and asctime forms.
enum HTTPDate {
    private static let formats = [
        "EEE, dd MMM yyyy HH:mm:ss zzz",
        "EEEE, dd-MMM-yy HH:mm:ss zzz",
        "EEE MMM d HH:mm:ss yyyy",
    ]

    static func parse(_ text: String) -> Date? {
        for format in formats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}

/// A cap on retries across all requests of a pipeline: every request deposits `ratio` of a
/// retry (up to `capacity`), every retry withdraws one. With the defaults, retries can add at most
/// 20 % to the load once the initial `reserve` of 10 is spent, so an upstream that fails
/// everything is not hammered with `maxAttempts ×` the traffic.
public struct RetryBudget: Sendable, Equatable {
    /// Retries earned per request. Default 0.2.
    public var ratio: Double
    /// Retries available at start, so low-traffic clients can still retry. Default 10.
    public var reserve: Double
    /// The most retries that can be saved up. Default 100.
    public var capacity: Double
    /// Retries available now.
    public private(set) var balance: Double

    /// Creates a full-reserve budget.
    public init(ratio: Double = 0.2, reserve: Double = 10, capacity: Double = 100) {
        self.ratio = ratio
        self.reserve = reserve
        self.capacity = max(capacity, reserve)
        self.balance = reserve
    }

    /// No cap at all.
    public static let unlimited = RetryBudget(ratio: 0, reserve: .infinity, capacity: .infinity)

    /// Records one new request.
    public mutating func deposit() {
        balance = min(capacity, balance + ratio)
    }

    /// Takes one retry if the budget has one; returns whether it did.
    public mutating func withdraw() -> Bool {
        guard balance >= 1 else { return false }
        balance -= 1
        return true
    }
}
