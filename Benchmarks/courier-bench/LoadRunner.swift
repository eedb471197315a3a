import Courier
import Foundation

/// What one load run measured.
struct Measurement {
    let requests: Int
    let failures: Int
    let elapsed: Duration
    /// Per-request latencies, sorted ascending.
    let latencies: [Duration]

    var requestsPerSecond: Double {
        Double(requests) / elapsed.seconds
    }

    /// The latency at quantile `q` (0...1), in microseconds.
    func percentileMicros(_ q: Double) -> Double {
        guard !latencies.isEmpty else { return 0 }
        let index = min(latencies.count - 1, Int((Double(latencies.count) * q).rounded(.up)) - 1)
        return latencies[max(0, index)].seconds * 1e6
    }
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}

/// Runs `operation` `requests` times from `concurrency` concurrent workers and measures
/// throughput and per-request latency.
func measure(
    requests: Int, concurrency: Int, _ operation: @escaping @Sendable () async throws -> Void
) async -> Measurement {
    let clock = ContinuousClock()
    let perWorker = requests / concurrency
    let extra = requests % concurrency
    let start = clock.now
    let results = await withTaskGroup(of: ([Duration], Int).self) { group in
        for worker in 0..<concurrency {
            let count = perWorker + (worker < extra ? 1 : 0)
            group.addTask {
                var latencies: [Duration] = []
                latencies.reserveCapacity(count)
                var failures = 0
                for _ in 0..<count {
                    let began = clock.now
                    do { try await operation() } catch { failures += 1 }
                    latencies.append(clock.now - began)
                }
                return (latencies, failures)
            }
        }
        var all: [Duration] = []
        all.reserveCapacity(requests)
        var failures = 0
        for await (latencies, failed) in group {
            all += latencies
            failures += failed
        }
        return (all, failures)
    }
    let elapsed = clock.now - start
    return Measurement(requests: requests, failures: results.1, elapsed: elapsed, latencies: results.0.sorted())
}

/// Resident memory figures of this process, from /proc (zero where unavailable).
enum ProcessMemory {
    /// Peak resident set size, in MiB.
    static var peakResidentMiB: Double { statusField("VmHWM") }
    /// Current resident set size, in MiB.
    static var residentMiB: Double { statusField("VmRSS") }

    private static func statusField(_ name: String) -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? 0
            return kilobytes / 1024
        }
        return 0
    }
}
