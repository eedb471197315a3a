import Courier
import Foundation

/// One line of results (the JSON schema of `--json`).
struct Row: Encodable {
    let name: String
    let transport: String
    let concurrency: Int
    let requests: Int
    let requestsPerSecond: Double
    let baselineRequestsPerSecond: Double
    let p50Micros: Double
    let p90Micros: Double
    let p99Micros: Double
    let messagesPerRequest: Double
    let peakRSSMiB: Double
    /// CPU time of the whole process per request (microseconds), and the baseline's.
    let cpuMicrosPerRequest: Double
    let baselineCpuMicrosPerRequest: Double
    /// Context switches of the whole process per request.
    let contextSwitchesPerRequest: Double
}
