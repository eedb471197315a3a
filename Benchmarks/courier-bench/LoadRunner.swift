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

extension Measurement {
    /// Several runs of the same scenario taken as one: requests and time add up.
    init(combining runs: [Measurement]) {
        self.init(
            requests: runs.reduce(0) { $0 + $1.requests },
            failures: runs.reduce(0) { $0 + $1.failures },
            elapsed: runs.reduce(.zero) { $0 + $1.elapsed },
            latencies: runs.flatMap(\.latencies).sorted())
        usage = runs.reduce(ProcessUsage()) { $0 + $1.usage }
    }
}

/// Measures several paths of one scenario in interleaved rounds whose order rotates
/// (A B C, B C A, C A B, …), so drift in the machine's load (it is shared and noisy) and the
/// position in a round hit every path alike; returns one combined measurement per path.
func measureInterleaved(
    requests: Int, concurrency: Int, rounds: Int, _ paths: [@Sendable () async throws -> Void]
) async -> [Measurement] {
    var runs = Array(repeating: [Measurement](), count: paths.count)
    for round in 0..<rounds {
        for offset in paths.indices {
            let index = (round + offset) % paths.count
            let before = ProcessUsage.now
            var run = await measure(requests: requests / rounds, concurrency: concurrency, paths[index])
            run.usage = ProcessUsage.now - before
            runs[index].append(run)
        }
    }
    return runs.map(Measurement.init(combining:))
}

/// CPU time and context switches of this whole process, from `getrusage`: steadier than
/// throughput on a shared machine, since another process's load slows this one down without
/// adding to its CPU time.
struct ProcessUsage {
    var cpuSeconds = 0.0
    var contextSwitches = 0.0

    static var now: ProcessUsage {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return ProcessUsage(cpuSeconds: user + system, contextSwitches: Double(usage.ru_nvcsw + usage.ru_nivcsw))
    }

    static func + (a: ProcessUsage, b: ProcessUsage) -> ProcessUsage {
        ProcessUsage(cpuSeconds: a.cpuSeconds + b.cpuSeconds, contextSwitches: a.contextSwitches + b.contextSwitches)
    }

    static func - (a: ProcessUsage, b: ProcessUsage) -> ProcessUsage {
        ProcessUsage(cpuSeconds: a.cpuSeconds - b.cpuSeconds, contextSwitches: a.contextSwitches - b.contextSwitches)
    }
}

extension Measurement {
    /// CPU time this process spent per request, in microseconds.
    var cpuMicrosPerRequest: Double { usage.cpuSeconds / Double(requests) * 1e6 }
    /// Context switches of this process per request.
    var contextSwitchesPerRequest: Double { usage.contextSwitches / Double(requests) }
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
