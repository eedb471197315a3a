import CourierTesting
import Foundation
import Testing

@testable import Courier

// MARK: - Fixtures

/// A fixed wall clock: Wed, 21 Oct 2015 07:28:00 GMT.
private let fixedNow = Date(timeIntervalSince1970: 1_445_412_480)

private let itemsURL = URL(string: "https://api.example.com/items")!

private func makeRequest(_ method: HTTPMethod = .get, headers: HTTPHeaders = [:]) -> HTTPRequest {
    HTTPRequest(method: method, url: itemsURL, headers: headers)
}

private func status(_ code: Int, headers: HTTPHeaders = [:]) -> RetryPolicy.AttemptOutcome {
    .response(HTTPResponse(status: code, headers: headers))
}

/// Retryable statuses of the default policy.
private let defaultStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]

/// A policy without jitter, so every delay is exact.
private func exactPolicy(
    maxAttempts: Int = 5,
    backoff: BackoffStrategy = .constant(.seconds(1)),
    maximumDelay: Duration = .seconds(30),
    honoursRetryAfter: Bool = true
) -> RetryPolicy {
    RetryPolicy(
        maxAttempts: maxAttempts, retryableStatusCodes: defaultStatuses, backoff: backoff,
        jitter: false, maximumDelay: maximumDelay, honoursRetryAfter: honoursRetryAfter)
}

private extension RetryPolicy {
    /// `decide` with the fixed clock.
    func decide(
        attempt: Int, _ outcome: RetryPolicy.AttemptOutcome, request: HTTPRequest = makeRequest(),
        randomUnit: Double = 0.5
    ) -> Decision {
        decide(attempt: attempt, request: request, outcome: outcome, now: fixedNow, randomUnit: randomUnit)
    }
}

private struct OpaqueCause: Error {}

// MARK: - Presets

@Suite struct RetryPolicyTests {
    @Test("default preset: 3 attempts, 408/429/5xx gateway statuses, exponential 1 s ×2 with jitter")
    func defaultPreset() {
        let policy = RetryPolicy.default
        #expect(policy.maxAttempts == 3)
        #expect(policy.retryableStatusCodes == [408, 429, 500, 502, 503, 504])
        #expect(policy.backoff == .exponential(base: .seconds(1), multiplier: 2))
        #expect(policy.jitter)
        #expect(policy.maximumDelay == .seconds(30))
        #expect(policy.honoursRetryAfter)
        // randomUnit 0.5 halves the (jittered) backoff: 1 s → 0.5 s, then 2 s → 1 s; the third
        // attempt is the last.
        #expect(policy.decide(attempt: 1, status(503)) == .retry(after: .milliseconds(500), reason: "status 503"))
        #expect(policy.decide(attempt: 2, status(503)) == .retry(after: .seconds(1), reason: "status 503"))
        #expect(policy.decide(attempt: 3, status(503)) == .stop)
    }

    @Test("never preset: a single attempt, never retried")
    func neverPreset() {
        let policy = RetryPolicy.never
        #expect(policy.maxAttempts == 1)
        #expect(policy.retryableStatusCodes.isEmpty)
        #expect(policy.backoff == .immediate)
        #expect(policy.decide(attempt: 1, status(503)) == .stop)
        #expect(policy.decide(attempt: 1, .failure(NetworkError.timeout(.attempt, underlying: nil))) == .stop)
    }

    @Test("aggressive preset: 5 attempts, adds Cloudflare's 520–524, exponential 0.5 s ×1.5")
    func aggressivePreset() {
        let policy = RetryPolicy.aggressive
        #expect(policy.maxAttempts == 5)
        #expect(policy.retryableStatusCodes == [408, 429, 500, 502, 503, 504, 520, 521, 522, 523, 524])
        #expect(policy.backoff == .exponential(base: .milliseconds(500), multiplier: 1.5))
        #expect(policy.jitter)
        for code in 520...524 {
            #expect(policy.decide(attempt: 1, status(code), randomUnit: 0.5)
                == .retry(after: .milliseconds(250), reason: "status \(code)"))
        }
        #expect(policy.decide(attempt: 1, status(525)) == .stop)
        #expect(policy.decide(attempt: 4, status(502)) != .stop)
        #expect(policy.decide(attempt: 5, status(502)) == .stop)
        // The default preset does not retry the Cloudflare statuses.
        #expect(RetryPolicy.default.decide(attempt: 1, status(522)) == .stop)
    }

    @Test("maxAttempts below 1 is raised to 1")
    func maxAttemptsFloor() {
        #expect(exactPolicy(maxAttempts: 0).maxAttempts == 1)
        #expect(exactPolicy(maxAttempts: -3).maxAttempts == 1)
        #expect(exactPolicy(maxAttempts: 0).decide(attempt: 1, status(503)) == .stop)
    }

    // MARK: - Backoff strategies

    @Test("backoff .none is always zero")
    func backoffImmediate() {
        for attempt in 1...5 {
            #expect(BackoffStrategy.immediate.delay(afterAttempt: attempt) == .zero)
        }
    }

    @Test("backoff .constant is the same every attempt")
    func backoffConstant() {
        let strategy = BackoffStrategy.constant(.milliseconds(1500))
        for attempt in 1...5 {
            #expect(strategy.delay(afterAttempt: attempt) == .milliseconds(1500))
        }
    }

    @Test("backoff .linear is base + increment × (attempt − 1)")
    func backoffLinear() {
        let strategy = BackoffStrategy.linear(base: .seconds(1), increment: .milliseconds(500))
        #expect(strategy.delay(afterAttempt: 1) == .seconds(1))
        #expect(strategy.delay(afterAttempt: 2) == .milliseconds(1500))
        #expect(strategy.delay(afterAttempt: 3) == .seconds(2))
        #expect(strategy.delay(afterAttempt: 4) == .milliseconds(2500))
        // Attempt numbers below 1 count as the first.
        #expect(strategy.delay(afterAttempt: 0) == .seconds(1))
    }

    @Test("backoff .exponential is base × multiplier^(attempt − 1)")
    func backoffExponential() {
        let doubling = BackoffStrategy.exponential(base: .seconds(1), multiplier: 2)
        #expect(doubling.delay(afterAttempt: 1) == .seconds(1))
        #expect(doubling.delay(afterAttempt: 2) == .seconds(2))
        #expect(doubling.delay(afterAttempt: 3) == .seconds(4))
        #expect(doubling.delay(afterAttempt: 4) == .seconds(8))
        #expect(doubling.delay(afterAttempt: 11) == .seconds(1024))
        #expect(doubling.delay(afterAttempt: 0) == .seconds(1))

        let gentle = BackoffStrategy.exponential(base: .milliseconds(500), multiplier: 1.5)
        #expect(gentle.delay(afterAttempt: 1) == .milliseconds(500))
        #expect(gentle.delay(afterAttempt: 2) == .milliseconds(750))
        #expect(gentle.delay(afterAttempt: 3) == .microseconds(1_125_000))
        #expect(gentle.delay(afterAttempt: 4) == .microseconds(1_687_500))
    }

    @Test("decide uses the backoff delay of the attempt that failed")
    func decideUsesBackoffPerAttempt() {
        let policy = exactPolicy(maxAttempts: 6, backoff: .linear(base: .seconds(1), increment: .seconds(2)))
        #expect(policy.decide(attempt: 1, status(500)) == .retry(after: .seconds(1), reason: "status 500"))
        #expect(policy.decide(attempt: 2, status(500)) == .retry(after: .seconds(3), reason: "status 500"))
        #expect(policy.decide(attempt: 5, status(500)) == .retry(after: .seconds(9), reason: "status 500"))
    }

    // MARK: - Jitter and the cap

    @Test("full jitter scales the delay by randomUnit")
    func fullJitter() {
        let policy = RetryPolicy(
            maxAttempts: 5, retryableStatusCodes: [503], backoff: .constant(.seconds(4)), jitter: true)
        #expect(policy.decide(attempt: 1, status(503), randomUnit: 0) == .retry(after: .zero, reason: "status 503"))
        #expect(policy.decide(attempt: 1, status(503), randomUnit: 0.5) == .retry(after: .seconds(2), reason: "status 503"))
        #expect(policy.decide(attempt: 1, status(503), randomUnit: 0.25) == .retry(after: .seconds(1), reason: "status 503"))
        #expect(policy.decide(attempt: 1, status(503), randomUnit: 0.75) == .retry(after: .seconds(3), reason: "status 503"))
    }

    @Test("jitter from a seeded random source stays within 0 ... delay and is reproducible")
    func seededJitter() {
        let policy = RetryPolicy(
            maxAttempts: 5, retryableStatusCodes: [503], backoff: .constant(.seconds(8)), jitter: true)
        let first = SeededRandomSource(seed: 42)
        let second = SeededRandomSource(seed: 42)
        for _ in 0..<20 {
            let unit = first.nextUnit()
            #expect(unit >= 0 && unit < 1)
            #expect(second.nextUnit() == unit)
            let decision = policy.decide(attempt: 1, status(503), randomUnit: unit)
            #expect(decision == .retry(after: .seconds(8) * unit, reason: "status 503"))
            guard case .retry(let delay, _) = decision else { continue }
            #expect(delay >= .zero && delay < .seconds(8))
        }
    }

    @Test("jitter: false keeps the delay exact whatever randomUnit is")
    func noJitter() {
        let policy = exactPolicy(backoff: .constant(.seconds(4)))
        for unit in [0.0, 0.1, 0.5, 0.999] {
            #expect(policy.decide(attempt: 1, status(503), randomUnit: unit) == .retry(after: .seconds(4), reason: "status 503"))
        }
    }

    @Test("maximumDelay caps the backoff, before jitter")
    func maximumDelayCaps() {
        let policy = exactPolicy(
            maxAttempts: 10, backoff: .exponential(base: .seconds(1), multiplier: 2), maximumDelay: .seconds(5))
        #expect(policy.decide(attempt: 1, status(502)) == .retry(after: .seconds(1), reason: "status 502"))
        #expect(policy.decide(attempt: 3, status(502)) == .retry(after: .seconds(4), reason: "status 502"))
        #expect(policy.decide(attempt: 4, status(502)) == .retry(after: .seconds(5), reason: "status 502"))
        #expect(policy.decide(attempt: 9, status(502)) == .retry(after: .seconds(5), reason: "status 502"))

        var jittered = policy
        jittered.jitter = true
        // 8 s is capped to 5 s, then jitter halves it.
        #expect(jittered.decide(attempt: 4, status(502), randomUnit: 0.5) == .retry(after: .milliseconds(2500), reason: "status 502"))
    }

    // MARK: - When to stop

    @Test("the attempt limit: attempt == maxAttempts stops")
    func attemptLimit() {
        let policy = exactPolicy(maxAttempts: 3)
        #expect(policy.decide(attempt: 1, status(503)) != .stop)
        #expect(policy.decide(attempt: 2, status(503)) != .stop)
        #expect(policy.decide(attempt: 3, status(503)) == .stop)
        #expect(policy.decide(attempt: 4, status(503)) == .stop)
        // Even a Retry-After or a retryable transport error does not go past the limit.
        #expect(policy.decide(attempt: 3, status(429, headers: ["Retry-After": "1"])) == .stop)
        #expect(policy.decide(attempt: 3, .failure(NetworkError.timeout(.attempt, underlying: nil))) == .stop)
    }

    @Test("non-retryable statuses stop", arguments: [200, 201, 204, 301, 304, 400, 401, 403, 404, 409, 418, 422, 501, 505])
    func nonRetryableStatusesStop(code: Int) {
        #expect(exactPolicy().decide(attempt: 1, status(code)) == .stop)
        #expect(RetryPolicy.default.decide(attempt: 1, status(code)) == .stop)
    }

    @Test("every retryable status of the default policy is retried", arguments: [408, 429, 500, 502, 503, 504])
    func retryableStatusesRetry(code: Int) {
        #expect(exactPolicy().decide(attempt: 1, status(code)) == .retry(after: .seconds(1), reason: "status \(code)"))
    }

    @Test("a custom status set is honoured exactly")
    func customStatusSet() {
        let policy = RetryPolicy(maxAttempts: 3, retryableStatusCodes: [418], backoff: .immediate, jitter: false)
        #expect(policy.decide(attempt: 1, status(418)) == .retry(after: .zero, reason: "status 418"))
        #expect(policy.decide(attempt: 1, status(503)) == .stop)
    }

    // MARK: - Methods and idempotency

    @Test("POST is not retried on 503, or on a timeout")
    func postNotRetried() {
        let policy = exactPolicy()
        #expect(policy.decide(attempt: 1, status(503), request: makeRequest(.post)) == .stop)
        #expect(policy.decide(attempt: 1, .failure(.timeout(.attempt, underlying: nil)), request: makeRequest(.post)) == .stop)
        #expect(policy.decide(attempt: 1, .failure(.noConnection(underlying: nil)), request: makeRequest(.post)) == .stop)
    }

    @Test("PATCH and unknown methods are not retried")
    func patchNotRetried() {
        let policy = exactPolicy()
        #expect(policy.decide(attempt: 1, status(503), request: makeRequest(.patch)) == .stop)
        #expect(policy.decide(attempt: 1, status(503), request: makeRequest("PURGE")) == .stop)
    }

    @Test("POST and PATCH with an Idempotency-Key header are retried (name matched case-insensitively)")
    func idempotencyKeyAllowsRetry() {
        let policy = exactPolicy()
        let post = makeRequest(.post, headers: ["Idempotency-Key": "8e03978e-40d5-43e8-bc93-6894a57f9324"])
        #expect(policy.decide(attempt: 1, status(503), request: post) == .retry(after: .seconds(1), reason: "status 503"))
        #expect(policy.decide(attempt: 1, .failure(.timeout(.attempt, underlying: nil)), request: post)
            == .retry(after: .seconds(1), reason: "timeout"))
        let patch = makeRequest(.patch, headers: ["idempotency-key": "k1"])
        #expect(policy.decide(attempt: 1, status(503), request: patch) == .retry(after: .seconds(1), reason: "status 503"))
        // The key does not lift the other rules.
        #expect(policy.decide(attempt: 1, status(400), request: post) == .stop)
        #expect(policy.decide(attempt: 5, status(503), request: post) == .stop)
    }

    @Test("idempotent methods are retried", arguments: [HTTPMethod.get, .head, .options, .put, .delete, "TRACE", "get"])
    func idempotentMethodsRetried(method: HTTPMethod) {
        #expect(exactPolicy().decide(attempt: 1, status(503), request: makeRequest(method))
            == .retry(after: .seconds(1), reason: "status 503"))
    }

    // MARK: - Transport errors

    @Test("a timeout is retried")
    func timeoutRetried() {
        let policy = exactPolicy()
        #expect(policy.decide(attempt: 1, .failure(.timeout(.attempt, underlying: nil))) == .retry(after: .seconds(1), reason: "timeout"))
        #expect(policy.decide(attempt: 2, .failure(.timeout(.attempt, underlying: OpaqueCause())))
            == .retry(after: .seconds(1), reason: "timeout"))
    }

    @Test("no connection is retried")
    func noConnectionRetried() {
        let policy = exactPolicy(backoff: .exponential(base: .seconds(1), multiplier: 2))
        #expect(policy.decide(attempt: 2, .failure(.noConnection(underlying: URLError(.notConnectedToInternet))))
            == .retry(after: .seconds(2), reason: "no connection"))
    }

    @Test("a server that refused the connection or cannot be routed to is retried whatever the method: nothing was sent")
    func cannotConnectRetriedForAnyMethod() {
        let policy = exactPolicy()
        for reason in [NetworkError.ConnectFailure.refused, .unreachable] {
            let refused = NetworkError.cannotConnect(host: "127.0.0.1", port: 8899, reason: reason, underlying: nil)
            for method in [HTTPMethod.get, .post, .patch] {
                #expect(policy.decide(attempt: 1, .failure(refused), request: makeRequest(method))
                    == .retry(after: .seconds(1), reason: "cannot connect to 127.0.0.1:8899 (\(reason))"), "\(method) \(reason)")
            }
        }
    }

    @Test("a name that does not resolve and a failed TLS handshake are not retried; a lost connection only when idempotent")
    func permanentConnectFailuresAndLostConnections() {
        let policy = exactPolicy()
        for reason in [NetworkError.ConnectFailure.hostNotFound, .tlsHandshake] {
            let error = NetworkError.cannotConnect(host: "api.invalid", port: 443, reason: reason, underlying: nil)
            #expect(policy.decide(attempt: 1, .failure(error), request: makeRequest(.get)) == .stop, "\(reason)")
        }
        let lost = NetworkError.connectionLost(host: "api.example.com", port: 443, underlying: nil)
        #expect(policy.decide(attempt: 1, .failure(lost), request: makeRequest(.get)) == .retry(after: .seconds(1), reason: "connection lost"))
        #expect(policy.decide(attempt: 1, .failure(lost), request: makeRequest(.post)) == .stop)   // it may have been applied
    }

    @Test(
        "other transport failures are not retried",
        arguments: [
            NetworkError.cancelled,
            .securityError("refused plain http request"),
            .decodingError(underlying: OpaqueCause(), bodyPrefix: "<html>"),
            .encodingError(underlying: OpaqueCause()),
            .invalidURL("no host"),
            .invalidRequest("bad header"),
            .responseTooLarge(limit: 10),
            .unauthorized(nil),
            .unknown(underlying: nil),
            .componentUnavailable("transport"),
        ])
    func otherFailuresStop(error: NetworkError) {
        #expect(exactPolicy().decide(attempt: 1, .failure(error)) == .stop)
        #expect(RetryPolicy.aggressive.decide(attempt: 1, .failure(error)) == .stop)
    }

    // MARK: - Retry-After

    @Test("Retry-After: 2 on a 429 waits exactly 2 s, without jitter")
    func retryAfterSecondsOn429() {
        // The default policy jitters its backoff; Retry-After must not be jittered.
        for unit in [0.0, 0.5, 0.99] {
            #expect(RetryPolicy.default.decide(attempt: 1, status(429, headers: ["Retry-After": "2"]), randomUnit: unit)
                == .retry(after: .seconds(2), reason: "status 429, Retry-After 2"))
        }
    }

    @Test("Retry-After on a 503 is honoured too")
    func retryAfterSecondsOn503() {
        #expect(RetryPolicy.default.decide(attempt: 2, status(503, headers: ["retry-after": "7"]), randomUnit: 0)
            == .retry(after: .seconds(7), reason: "status 503, Retry-After 7"))
        #expect(RetryPolicy.default.decide(attempt: 1, status(503, headers: ["Retry-After": "0"]), randomUnit: 0.5)
            == .retry(after: .zero, reason: "status 503, Retry-After 0"))
    }

    @Test("Retry-After on other statuses is ignored: the backoff applies", arguments: [500, 502, 504, 408])
    func retryAfterIgnoredOnOtherStatuses(code: Int) {
        let policy = exactPolicy(backoff: .constant(.seconds(1)))
        #expect(policy.decide(attempt: 1, status(code, headers: ["Retry-After": "2"]))
            == .retry(after: .seconds(1), reason: "status \(code)"))
    }

    @Test("Retry-After as an IMF-fixdate is relative to now")
    func retryAfterHTTPDate() {
        let header = "Wed, 21 Oct 2015 07:28:10 GMT" // fixedNow + 10 s
        #expect(RetryPolicy.default.decide(attempt: 1, status(429, headers: ["Retry-After": header]), randomUnit: 0.5)
            == .retry(after: .seconds(10), reason: "status 429, Retry-After \(header)"))
        #expect(RetryPolicy.retryAfter(header, now: fixedNow) == .seconds(10))
        #expect(RetryPolicy.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now: fixedNow - 90) == .seconds(90))
    }

    @Test("Retry-After HTTP-dates round a fractional wait up to the millisecond")
    func retryAfterHTTPDateRoundsUp() {
        let header = "Wed, 21 Oct 2015 07:28:10 GMT"
        #expect(RetryPolicy.retryAfter(header, now: fixedNow + 0.25) == .milliseconds(9750))
        #expect(RetryPolicy.retryAfter(header, now: fixedNow + 9.9996) == .milliseconds(1))
    }

    @Test("Retry-After in the obsolete RFC 850 and asctime forms")
    func retryAfterObsoleteDateForms() {
        #expect(RetryPolicy.retryAfter("Wednesday, 21-Oct-15 07:28:30 GMT", now: fixedNow) == .seconds(30))
        #expect(RetryPolicy.retryAfter("Wed Oct 21 07:28:05 2015", now: fixedNow) == .seconds(5))
        let eightAM = Date(timeIntervalSince1970: 784_108_800) // Sun, 06 Nov 1994 08:00:00 GMT
        #expect(RetryPolicy.retryAfter("Sun Nov  6 08:49:37 1994", now: eightAM) == .seconds(49 * 60 + 37))
    }

    @Test("a Retry-After date in the past means retry at once")
    func retryAfterPastDate() {
        let header = "Wed, 21 Oct 2015 07:27:00 GMT" // a minute before fixedNow
        #expect(RetryPolicy.retryAfter(header, now: fixedNow) == .zero)
        #expect(RetryPolicy.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now: fixedNow) == .zero)
        #expect(RetryPolicy.default.decide(attempt: 1, status(503, headers: ["Retry-After": header]), randomUnit: 0.5)
            == .retry(after: .zero, reason: "status 503, Retry-After \(header)"))
    }

    @Test("an unparsable Retry-After falls back to the backoff", arguments: ["soon", "", "2.5", "-1", "1e3", "Wed, 32 Oct 2015 07:28:00", "tomorrow GMT"])
    func retryAfterGarbage(header: String) {
        #expect(RetryPolicy.retryAfter(header, now: fixedNow) == nil)
        let policy = exactPolicy(backoff: .constant(.seconds(3)))
        #expect(policy.decide(attempt: 1, status(429, headers: ["Retry-After": header]))
            == .retry(after: .seconds(3), reason: "status 429"))
    }

    @Test("Retry-After tolerates surrounding whitespace")
    func retryAfterWhitespace() {
        #expect(RetryPolicy.retryAfter(" 2 ", now: fixedNow) == .seconds(2))
        #expect(RetryPolicy.retryAfter("  Wed, 21 Oct 2015 07:28:10 GMT ", now: fixedNow) == .seconds(10))
    }

    @Test("a huge Retry-After is clamped to maximumDelay")
    func retryAfterClamped() {
        let policy = exactPolicy(maximumDelay: .seconds(30))
        #expect(policy.decide(attempt: 1, status(429, headers: ["Retry-After": "86400"]))
            == .retry(after: .seconds(30), reason: "status 429, Retry-After 86400"))
        #expect(policy.decide(attempt: 1, status(503, headers: ["Retry-After": String(Int.max)]))
            == .retry(after: .seconds(30), reason: "status 503, Retry-After \(Int.max)"))
        let farFuture = "Fri, 01 Jan 2100 00:00:00 GMT"
        #expect(policy.decide(attempt: 1, status(503, headers: ["Retry-After": farFuture]))
            == .retry(after: .seconds(30), reason: "status 503, Retry-After \(farFuture)"))
        // Under the cap it is kept as is.
        #expect(policy.decide(attempt: 1, status(503, headers: ["Retry-After": "29"]))
            == .retry(after: .seconds(29), reason: "status 503, Retry-After 29"))
    }

    @Test("honoursRetryAfter: false ignores Retry-After")
    func retryAfterNotHonoured() {
        let policy = exactPolicy(backoff: .constant(.seconds(1)), honoursRetryAfter: false)
        #expect(policy.decide(attempt: 1, status(429, headers: ["Retry-After": "20"]))
            == .retry(after: .seconds(1), reason: "status 429"))
        #expect(policy.decide(attempt: 1, status(503, headers: ["Retry-After": "Wed, 21 Oct 2015 07:28:10 GMT"]))
            == .retry(after: .seconds(1), reason: "status 503"))
    }

    @Test("Retry-After does not make a non-retryable status retryable")
    func retryAfterOnNonRetryableStatus() {
        let policy = RetryPolicy(maxAttempts: 3, retryableStatusCodes: [500], backoff: .immediate, jitter: false)
        #expect(policy.decide(attempt: 1, status(429, headers: ["Retry-After": "2"])) == .stop)
        #expect(policy.decide(attempt: 1, status(503, headers: ["Retry-After": "2"])) == .stop)
    }

    @Test("Retry-After does not lift the idempotency rule")
    func retryAfterOnPost() {
        #expect(exactPolicy().decide(attempt: 1, status(503, headers: ["Retry-After": "2"]), request: makeRequest(.post)) == .stop)
    }

    // MARK: - RetryBudget

    /// Withdraws `count` times and returns each answer.
    private func withdraw(_ count: Int, from budget: inout RetryBudget) -> [Bool] {
        (0..<count).map { _ in budget.withdraw() }
    }

    /// Deposits `count` times.
    private func deposit(_ count: Int, into budget: inout RetryBudget) {
        for _ in 0..<count { budget.deposit() }
    }

    @Test("RetryBudget defaults")
    func budgetDefaults() {
        let budget = RetryBudget()
        #expect(budget.ratio == 0.2)
        #expect(budget.reserve == 10)
        #expect(budget.capacity == 100)
        #expect(budget.balance == 10)
    }

    @Test("the reserve is spent, then retries are denied")
    func budgetReserveSpent() {
        var budget = RetryBudget(ratio: 0.5, reserve: 3, capacity: 10)
        let granted = withdraw(5, from: &budget)
        #expect(granted == [true, true, true, false, false])
        #expect(budget.balance == 0)
    }

    @Test("deposits of ratio per request earn retries back")
    func budgetDepositsRestore() {
        var budget = RetryBudget(ratio: 0.25, reserve: 1, capacity: 10)
        let spent = withdraw(2, from: &budget)
        #expect(spent == [true, false])
        deposit(3, into: &budget)
        #expect(budget.balance == 0.75)
        let tooEarly = withdraw(1, from: &budget)
        #expect(tooEarly == [false])
        #expect(budget.balance == 0.75)
        deposit(1, into: &budget)
        #expect(budget.balance == 1)
        let earned = withdraw(2, from: &budget)
        #expect(earned == [true, false])
        #expect(budget.balance == 0)
    }

    @Test("with the default ratio, every 5 requests earn one retry")
    func budgetDefaultRatio() {
        var budget = RetryBudget()
        let reserve = withdraw(11, from: &budget)
        #expect(reserve == Array(repeating: true, count: 10) + [false])
        deposit(4, into: &budget)
        let afterFour = withdraw(1, from: &budget)
        #expect(afterFour == [false])
        deposit(1, into: &budget)
        let afterFive = withdraw(2, from: &budget)
        #expect(afterFive == [true, false])
    }

    @Test("capacity caps what can be saved up")
    func budgetCapacity() {
        var budget = RetryBudget(ratio: 1, reserve: 2, capacity: 3)
        deposit(50, into: &budget)
        #expect(budget.balance == 3)
        let granted = withdraw(4, from: &budget)
        #expect(granted == [true, true, true, false])
    }

    @Test("capacity is never below the reserve")
    func budgetCapacityAtLeastReserve() {
        var budget = RetryBudget(ratio: 1, reserve: 10, capacity: 5)
        #expect(budget.capacity == 10)
        #expect(budget.balance == 10)
        deposit(1, into: &budget)
        #expect(budget.balance == 10)
    }

    @Test(".unlimited never denies")
    func budgetUnlimited() {
        var budget = RetryBudget.unlimited
        let granted = withdraw(10_000, from: &budget)
        #expect(granted.allSatisfy { $0 })
        deposit(1, into: &budget)
        #expect(budget.balance == .infinity)
        let more = withdraw(1, from: &budget)
        #expect(more == [true])
    }

    @Test("a huge exponential backoff is capped not a trap")
    func aHugeExponentialBackoffIsCappedNotATrap() {
        let policy = RetryPolicy(maxAttempts: 30, retryableStatusCodes: [503], backoff: .exponential(base: .seconds(1), multiplier: 10), jitter: false)
        let decision = policy.decide(
            attempt: 25, request: HTTPRequest(url: URL(string: "https://h/x")!),
            outcome: .response(HTTPResponse(status: 503)), now: Date(), randomUnit: 0)
        #expect(decision == .retry(after: policy.maximumDelay, reason: "status 503"))
    }

    @Test("a retry after beyond int is clamped and signs are rejected")
    func aRetryAfterBeyondIntIsClampedAndSignsAreRejected() {
        let now = Date()
        #expect(RetryPolicy.retryAfter("99999999999999999999", now: now).map { $0 >= .seconds(3600) } == true)
        #expect(RetryPolicy.retryAfter("+5", now: now) == nil)
        #expect(RetryPolicy.retryAfter(" 7 ", now: now) == .seconds(7))
    }

}
