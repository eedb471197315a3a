/// A cap on extra attempts across all requests of a pipeline: every request deposits `ratio` of
/// an attempt (up to `capacity`), every retry withdraws one. ``HedgingPolicy/budget`` caps
/// hedges with the same bucket (Finagle's backup-request budget). With the defaults, retries can add at most
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

    /// Gives back a permit ``withdraw()`` took for an attempt that was not made.
    mutating func refund() {
        balance = min(capacity, balance + 1)
    }
}
