/// What one fixed-rate (open-loop) run measured: latencies counted from each request's due
/// time (``FixedRateSchedule``), failed requests apart.
struct FixedRateMeasurement: Sendable {
    /// The rate asked for, requests per second.
    let rate: Double
    /// Requests sent (all of the schedule's).
    let requests: Int
    let failures: Int
    /// The successful requests' latencies, in nanoseconds.
    let histogram: LatencyHistogram
    /// From the first request's due time to the last response.
    let elapsedNanos: UInt64
    /// What the whole process spent while it ran.
    let usage: ProcessUsage
    /// The most requests in flight at once (started, not yet answered).
    let peakInFlight: Int

    /// Successful requests per second, over the whole run.
    var achievedRate: Double {
        elapsedNanos == 0 ? 0 : Double(requests - failures) / (Double(elapsedNanos) / 1e9)
    }

    /// CPU time of the whole process per request, in microseconds.
    var cpuMicrosPerRequest: Double {
        requests == 0 ? 0 : usage.cpuSeconds / Double(requests) * 1e6
    }
}
