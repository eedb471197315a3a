/// A client's circuit breakers, one per origin and policy, bounded: when it is full, a new
/// origin takes the place of the breaker unused the longest, a closed one first (a closed
/// breaker forgets only recent outcomes; an open one would let a failing origin be called
/// again). A value, kept under the chain step's lock.
struct CircuitBreakerTable: Sendable {
    /// Which breaker: the origin called and the policy of the call.
    struct Key: Hashable, Sendable {
        let origin: HTTPOrigin
        let policy: CircuitBreakerPolicy
    }

    /// What an attempt let through carries back with its outcome: which breaker, which instance
    /// of it (one evicted and made again does not count the old one's attempts), and its permit.
    struct Ticket: Sendable {
        let key: Key
        let serial: Int
        let permit: CircuitBreaker.Permit
    }

    /// What an attempt may do.
    enum Admission: Sendable {
        case permitted(Ticket)
        /// Refused until `retryAt` (nil: until a probe ends).
        case refused(retryAt: Duration?)
    }

    private struct Entry: Sendable {
        var breaker: CircuitBreaker
        let serial: Int
        var lastUsed: Duration
    }

    /// The most breakers kept. Default 1,024.
    let capacity: Int
    private var entries: [Key: Entry] = [:]
    private var nextSerial = 0

    init(capacity: Int = 1_024) {
        self.capacity = max(1, capacity)
    }

    /// How many breakers it keeps.
    var count: Int { entries.count }

    /// Whether an attempt under `key` may go at `now`, and the change of state that asking made.
    mutating func acquire(_ key: Key, now: Duration) -> (Admission, CircuitBreaker.Transition?) {
        let index: Dictionary<Key, Entry>.Index
        if let found = entries.index(forKey: key) {
            index = found
        } else {
            makeRoom()
            nextSerial += 1
            entries[key] = Entry(breaker: CircuitBreaker(configuration: key.policy.configuration), serial: nextSerial, lastUsed: now)
            index = entries.index(forKey: key)!
        }
        entries.values[index].lastUsed = now
        let serial = entries.values[index].serial
        switch entries.values[index].breaker.acquire(now: now) {
        case (.permitted(let permit), let transition):
            return (.permitted(Ticket(key: key, serial: serial, permit: permit)), transition)
        case (.refused(let retryAt), let transition):
            return (.refused(retryAt: retryAt), transition)
        }
    }

    /// Counts the outcome of the attempt `ticket` let through; the change of state it makes.
    mutating func record(
        _ outcome: CircuitBreaker.Outcome, of ticket: Ticket, duration: Duration, now: Duration, random: Double
    ) -> CircuitBreaker.Transition? {
        guard let index = entries.index(forKey: ticket.key), entries.values[index].serial == ticket.serial else { return nil }
        entries.values[index].lastUsed = now
        return entries.values[index].breaker.record(outcome, of: ticket.permit, duration: duration, now: now, random: random)
    }

    /// The state of the breaker under `key`, if there is one.
    func state(of key: Key) -> CircuitBreaker.State? {
        entries[key]?.breaker.state
    }

    /// Frees a place when full: the closed breaker unused the longest, else any unused the longest.
    private mutating func makeRoom() {
        guard entries.count >= capacity else { return }
        let victim = entries.min { first, second in
            let (firstClosed, secondClosed) = (first.value.breaker.state == .closed, second.value.breaker.state == .closed)
            if firstClosed != secondClosed { return firstClosed }
            return first.value.lastUsed < second.value.lastUsed
        }
        if let victim { entries.removeValue(forKey: victim.key) }
    }
}
