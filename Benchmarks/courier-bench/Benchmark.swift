import Courier
import CourierTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The throughput/latency benchmark: every scenario measures the raw path (the transport called
/// directly, plus the same JSON decode) and Courier's path in interleaved rounds, so the ratio is
/// what to read on a shared, noisy machine.
final class Benchmark {
    let options: Options
    private let rows = RowRecorder()

    init(options: Options) {
        self.options = options
    }

    /// The column titles of every result table.
    static let header = "name                 conc  requests      req/s   baseline  ratio    p50 µs    p90 µs    p99 µs msgs/req   cpu µs  ratio    csw"

    func run() async {
        if options.url != nil || options.h2URL != nil || options.sections == [.websocket] {
            let sections = options.sections
            if let url = options.url, sections.contains(.requests) { await TransportComparison(options: options, url: url, rows: rows).run() }
            // Downloads before the fixed-rate rows, whose queues would set the peak RSS the
            // download rows report.
            if let url = options.url, sections.contains(.downloads) {
                let downloadURL = options.downloadURL ?? URL(string: "/files/100MiB.bin", relativeTo: url)!.absoluteURL
                await DownloadComparison(options: options, url: downloadURL, rows: rows).run()
            }
            if let url = options.url, sections.contains(.fixedRate) { await FixedRateComparison(options: options, url: url, rows: rows).run() }
            if let url = options.h2URL, sections.contains(.http2) {
                await HTTP2Comparison(options: options, url: url, extraRootsFile: options.h2CAFile, rows: rows).run()
            }
            if sections.contains(.websocket), options.url != nil || sections == [.websocket] {
                await WebSocketComparison(options: options, rows: rows).run()
            }
        } else {
            await inMemory()
        }
        if let jsonPath = options.jsonPath { rows.write(to: jsonPath) }
    }

    /// The request path on the embedded in-memory server, the cache, coalescing, the offline
    /// queue and the runtime's message costs.
    private func inMemory() async {
        let scenario = Scenario(url: nil)
        let transportName = scenario.transportName
        let (raw, piped, client, cachingClient) = (scenario.raw, scenario.piped, scenario.client, scenario.cachingClient)
        let requestsPerScenario = options.quick ? 20_000 : 200_000

        print("courier-bench: \(transportName) transport, \(requestsPerScenario) requests per scenario, \(ProcessInfo.processInfo.activeProcessorCount) cores")
        print("baseline: the same transport called directly + JSON decode; pipeline: APIClient.send (security guard + auth + decode)")
        print("cpu: CPU time of the whole process per request, and its ratio to the baseline's (steadier than req/s); csw: context switches per request")
        print(Self.header)

        for concurrency in [1, 16, 64, 256] {
            let warmup = max(requestsPerScenario / 10, 100)
            _ = await measure(requests: warmup, concurrency: concurrency, raw)
            _ = await measure(requests: warmup, concurrency: concurrency, scenario.floor)
            _ = await measure(requests: warmup, concurrency: concurrency, scenario.pipedNewURLs)
            _ = await measure(requests: warmup, concurrency: concurrency, piped)
            _ = await measure(requests: warmup, concurrency: concurrency, scenario.cacheHit)
            _ = await measure(requests: warmup, concurrency: concurrency, scenario.cacheMiss)
            // Each path is measured alone for its message count, then all in interleaved rounds.
            let pipelineMessages = await messagesPerRequest(concurrency, piped) { await Self.messages(client) }
            let hitMessages = await messagesPerRequest(concurrency, scenario.cacheHit) { await Self.messages(cachingClient) }
            let missMessages = await messagesPerRequest(concurrency, scenario.cacheMiss) { await Self.messages(cachingClient) }
            let paths = [raw, scenario.floor, piped, scenario.pipedNewURLs, scenario.cacheHit, scenario.cacheMiss]
            let results = await measureInterleaved(requests: requestsPerScenario, concurrency: concurrency, rounds: 6, paths)
            rows.report("baseline", transportName, concurrency, results[0], baseline: results[0], messages: 0)
            rows.report("one ask", transportName, concurrency, results[1], baseline: results[0], messages: 1)
            rows.report("pipeline", transportName, concurrency, results[2], baseline: results[0], messages: pipelineMessages)
            rows.report("pipeline new URLs", transportName, concurrency, results[3], baseline: results[0], messages: pipelineMessages)
            rows.report("cache hit", transportName, concurrency, results[4], baseline: results[0], messages: hitMessages)
            rows.report("cache miss", transportName, concurrency, results[5], baseline: results[0], messages: missMessages)
            print(String(
                format: "  cache at c=%d: hit / pipeline %.2f (target >= 1.5); miss with cache / pipeline on the same new URLs %.2f (target >= 0.8; %.2f against the pipeline row)",
                concurrency, results[4].requestsPerSecond / results[2].requestsPerSecond,
                results[5].requestsPerSecond / results[3].requestsPerSecond, results[5].requestsPerSecond / results[2].requestsPerSecond))
        }
        await client.shutdown()
        await cachingClient.shutdown()

        await GraphQLComparison(options: options, rows: rows).run()

        let coalescing = await Coalescing.transportCalls(callers: 1000)
        print("coalescing: \(coalescing.calls) transport call(s) for 1000 identical concurrent GETs (\(coalescing.failures) failed)")

        let offline = await OfflineThroughput.measure(
            concurrentWrites: options.quick ? 6_400 : 64_000, sequentialWrites: options.quick ? 500 : 2_000)
        print(String(
            format: "offline queue: %.0f durable enqueues/s with 64 enqueuers (target >= 20000), %.0f/s with one awaiting each (target >= 1000); drain %.0f items/s (in-memory transport)",
            offline.concurrentPerSecond, offline.sequentialPerSecond, offline.drainPerSecond)
            + (offline.failures > 0 ? " (\(offline.failures) failed)" : ""))

        // What one message costs in this runtime (tell: one enqueue + handle; ask: a round trip).
        let runtime = await RuntimeCosts.measure(messages: options.quick ? 200_000 : 2_000_000)
        print(String(format: "runtime: %.0f ns per tell, %.0f ns per ask (one sender, release build)", runtime.tellNanos, runtime.askNanos))
        print(String(format: "peak RSS %.1f MiB", ProcessMemory.peakResidentMiB))

        rows.extra = .init(
            tellNanos: runtime.tellNanos, askNanos: runtime.askNanos, coalescingTransportCallsPer1000: coalescing.calls,
            offlineEnqueuesPerSecond64: offline.concurrentPerSecond, offlineEnqueuesPerSecond1: offline.sequentialPerSecond,
            offlineDrainPerSecond: offline.drainPerSecond)
    }

    /// Mailbox messages per request of `path`: its components' message counters, read before and
    /// after a short run of it alone (the reads themselves subtracted).
    private func messagesPerRequest(
        _ concurrency: Int, _ path: @escaping @Sendable () async throws -> Void, _ count: () async -> (messages: Int, asks: Int)
    ) async -> Double {
        let requests = 2_000
        let before = await count()
        _ = await measure(requests: requests, concurrency: concurrency, path)
        let after = await count()
        // Each counter counts the stats ask that read it.
        return Double(after.messages - before.messages - after.asks) / Double(requests)
    }

    /// The messages the client's pipeline and cache have handled, and how many stats asks the
    /// reading took.
    private static func messages(_ client: APIClient) async -> (messages: Int, asks: Int) {
        let pipeline = (try? await client.pipelineStats().messagesHandled) ?? 0
        let cache = (try? await client.cache.stats().messagesHandled) ?? 0
        return (pipeline + cache, cache == 0 ? 1 : 2)
    }
}
