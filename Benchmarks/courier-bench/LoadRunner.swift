import Courier
import Foundation

/// Runs `operation` `requests` times from `concurrency` concurrent workers and measures
/// throughput, per-request latency and the process's CPU time over the same window as the
/// throughput (sorting the latencies afterwards is not counted).
func measure(
    requests: Int, concurrency: Int, _ operation: @escaping @Sendable () async throws -> Void
) async -> Measurement {
    let clock = ContinuousClock()
    let perWorker = requests / concurrency
    let extra = requests % concurrency
    let usageBefore = ProcessUsage.now
    let start = clock.now
    let results = await withTaskGroup(of: ([Duration], Int, String?).self) { group in
        for worker in 0..<concurrency {
            let count = perWorker + (worker < extra ? 1 : 0)
            group.addTask {
                var latencies: [Duration] = []
                latencies.reserveCapacity(count)
                var failures = 0
                var firstFailure: String?
                for _ in 0..<count {
                    let began = clock.now
                    do {
                        try await operation()
                    } catch {
                        failures += 1
                        if firstFailure == nil { firstFailure = "\(error)" }
                    }
                    latencies.append(clock.now - began)
                }
                return (latencies, failures, firstFailure)
            }
        }
        var all: [Duration] = []
        all.reserveCapacity(requests)
        var failures = 0
        var firstFailure: String?
        for await (latencies, failed, first) in group {
            all += latencies
            failures += failed
            firstFailure = firstFailure ?? first
        }
        return (all, failures, firstFailure)
    }
    let elapsed = clock.now - start
    let usage = ProcessUsage.now - usageBefore
    var measurement = Measurement(requests: requests, failures: results.1, elapsed: elapsed, latencies: results.0.sorted())
    measurement.usage = usage
    measurement.firstFailure = results.2
    return measurement
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
        firstFailure = runs.lazy.compactMap(\.firstFailure).first
    }
}

/// Runs a path `requests` times at `concurrency` and measures it.
typealias Runner = (_ requests: Int, _ concurrency: Int) async -> Measurement

/// The runner that calls `operation` once per request from concurrent workers (``measure``).
func runner(_ operation: @escaping @Sendable () async throws -> Void) -> Runner {
    { requests, concurrency in await measure(requests: requests, concurrency: concurrency, operation) }
}

/// Measures several paths of one scenario in interleaved rounds whose order rotates
/// (A B C, B C A, C A B, …), so drift in the machine's load (it is shared and noisy) and the
/// position in a round hit every path alike; returns one combined measurement per path.
func measureInterleaved(
    requests: Int, concurrency: Int, rounds: Int, _ paths: [@Sendable () async throws -> Void]
) async -> [Measurement] {
    await measureInterleaved(requests: requests, concurrency: concurrency, rounds: rounds, paths.map(runner))
}

/// ``measureInterleaved(requests:concurrency:rounds:_:)`` over runners.
func measureInterleaved(requests: Int, concurrency: Int, rounds: Int, _ paths: [Runner]) async -> [Measurement] {
    var runs = Array(repeating: [Measurement](), count: paths.count)
    for round in 0..<rounds {
        for offset in paths.indices {
            let index = (round + offset) % paths.count
            runs[index].append(await paths[index](requests / rounds, concurrency))
        }
    }
    return runs.map(Measurement.init(combining:))
}
