import Courier
import Foundation

/// `--url`'s tail latency at a fixed rate (open loop, as wrk2 measures): the raw libcurl loop's
/// maximum rate is measured first (the median of three closed-loop probes at concurrency 64),
/// then `raw libcurl`, `transport` and `pipeline` each run at 50 % and at 80 % of it, 10 s each
/// (1 s with `--quick`). Latency is counted from each request's due time (``FixedRateSchedule``), so
/// queueing behind a stall counts; percentiles come from a ``LatencyHistogram``.
struct FixedRateComparison {
    let options: Options
    let url: URL
    let rows: RowRecorder

    /// The fractions of the raw loop's maximum rate the rows run at.
    static let loads = [0.5, 0.8]
    /// Requests running at once in every row; the rest wait their turn.
    static let maxInFlight = 256

    func run() async {
        #if canImport(CCurl)
        let (token, sent) = (TransportComparison.token, TransportComparison.sentHeaders)
        let decoder = JSONDecoder()
        let configuration = TransportComparison.transportConfiguration()
        let transport = CurlTransport(configuration: configuration)
        let request = HTTPRequest(url: url, headers: sent)
        // Every row lets at most 256 requests run at once (the transport's connections); the
        // rest wait in arrival order, their latency counting from their due time.
        let limit = ConcurrencyLimit(Self.maxInFlight)
        let transportOnly: @Sendable () async throws -> Void = {
            try await limit.run { _ = try decoder.decode(User.self, from: try await transport.send(request).body) }
        }
        let client = TransportComparison.client(url, transport: transport, token: token, concurrency: Self.maxInFlight, maxQueued: 1_000_000)
        let endpoint = TransportComparison.endpoint(url)
        let pipeline: @Sendable () async throws -> Void = { _ = try await client.send(endpoint).value }
        let target = RawCurl.Target(url: url, headers: sent.map { "\($0.name): \($0.value)" })

        let probeConcurrency = 64
        _ = await RawCurl.measure(target, requests: 1_000, concurrency: probeConcurrency)
        // The median of three probes: one alone swings with the machine's load.
        var probes: [Measurement] = []
        for _ in 0..<3 {
            probes.append(await RawCurl.measure(target, requests: options.quick ? 5_000 : 30_000, concurrency: probeConcurrency))
        }
        let probe = probes.sorted { $0.requestsPerSecond < $1.requestsPerSecond }[1]
        let maximum = probe.requestsPerSecond
        guard probes.allSatisfy({ $0.failures == 0 }), maximum > 0 else {
            print("fixed-rate rows skipped: the raw loop's probes failed (\(probes.map(\.failures)) of \(probe.requests) requests each)")
            return
        }
        let warmTransport: @Sendable () async throws -> Void = {
            _ = try decoder.decode(User.self, from: try await transport.send(request).body)
        }
        for path in [warmTransport, pipeline] { _ = await measure(requests: 2_000, concurrency: 16, path) }
        let duration = Duration.seconds(options.quick ? 1 : 10)
        print(String(
            format: "\nfixed rate (open loop, as wrk2): raw libcurl's maximum %.0f req/s (the median of 3 closed-loop probes at c=%d, %d requests each: %@); each path at 50 %% and 80 %% of it for %@",
            maximum, probeConcurrency, probe.requests, probes.map { String(format: "%.0f", $0.requestsPerSecond) }.joined(separator: ", "),
            "\(duration)"))
        print("latency from each request's due time (coordinated omission corrected), HDR-style histogram (within 1 %); transport and pipeline start each request in a task of its own from a pacing thread")
        print("at most \(Self.maxInFlight) requests run at once in every row, the rest wait in arrival order: the raw loop's queue, a limit in front of the transport, the pipeline's admission (maxConcurrentRequests \(Self.maxInFlight)); in flight: the most started and not yet answered, waiting ones included")
        print(RowRecorder.fixedRateHeader)
        rows.fixedRateMaximum = maximum
        for load in Self.loads {
            let rate = maximum * load
            let raw = await RawCurl.measure(target, rate: rate, duration: duration, maxInFlight: Self.maxInFlight)
            rows.reportFixedRate("raw libcurl", load: load, raw)
            let transported = await FixedRateLoad.run(rate: rate, duration: duration, transportOnly)
            rows.reportFixedRate("transport", load: load, transported)
            let piped = await FixedRateLoad.run(rate: rate, duration: duration, pipeline)
            rows.reportFixedRate("pipeline", load: load, piped)
            let rawP99 = raw.histogram.micros(atQuantile: 0.99)
            print(String(
                format: "  at %.0f %%: p99 / raw libcurl's p99: transport %.2f, pipeline %.2f%@",
                load * 100, transported.histogram.micros(atQuantile: 0.99) / rawP99, piped.histogram.micros(atQuantile: 0.99) / rawP99,
                load == 0.5 ? " (target <= 1.5)" : ""))
        }
        await client.shutdown()
        #endif
    }
}
