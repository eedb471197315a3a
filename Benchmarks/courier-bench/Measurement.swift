import Courier
import Foundation

/// What one load run measured.
struct Measurement {
    let requests: Int
    let failures: Int
    let elapsed: Duration
    /// Per-request latencies, sorted ascending.
    let latencies: [Duration]
    /// What the whole process spent while it ran (CPU time, context switches).
    var usage = ProcessUsage()
    /// The first failure's error, to print beside the row.
    var firstFailure: String?

    /// Successful requests per second: a failure does not count as throughput.
    var requestsPerSecond: Double {
        Double(requests - failures) / elapsed.inSeconds
    }

    /// The latency at quantile `q` (0...1), in microseconds.
    func percentileMicros(_ q: Double) -> Double {
        guard !latencies.isEmpty else { return 0 }
        let index = min(latencies.count - 1, Int((Double(latencies.count) * q).rounded(.up)) - 1)
        return latencies[max(0, index)].inSeconds * 1e6
    }
}
