/// Counters of the request pipeline, for tests, benchmarks and health checks
/// (``APIClient/pipelineStats()``).
public struct PipelineStats: Sendable, Equatable {
    /// Requests whose work is running now.
    public var inFlight = 0
    /// Requests admitted but waiting for a free slot.
    public var queued = 0
    /// Requests admitted since the pipeline (re)started.
    public var admitted = 0
    /// Requests refused with ``NetworkError/overloaded``.
    public var rejected = 0
    /// Requests refused with ``NetworkError/overloaded`` by admission: those ``rejected`` on
    /// arrival and those shed from the queue for a more urgent one (``RequestPriority``).
    public var shed = 0
    /// Retries and hedges refused by the retry budget.
    public var retriesDenied = 0
    /// Hedges not sent because no slot was free (a hedge never waits for one;
    /// ``HedgingPolicy``).
    public var hedgesRefused = 0
    /// Mailbox messages handled since the pipeline (re)started.
    public var messagesHandled = 0
}
