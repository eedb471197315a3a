import Foundation

/// `--self-test`: checks of the benchmark's own instruments, which have no test target of
/// their own (the root package's tests do not depend on the benchmark): the latency histogram
/// against exact percentiles, the fixed-rate schedule, the open-loop driver's coordinated
/// omission correction, the `stub_status` parser, and the WebSocket rows' framing and echo
/// server (in functions, then live). CI runs it beside the smoke runs.
enum SelfTest {
    /// Runs every check; prints each failure and a summary; whether all passed.
    static func run() async -> Bool {
        var checks = Checks()
        histogramBuckets(&checks)
        histogramPercentiles(&checks)
        histogramMerge(&checks)
        schedule(&checks)
        stubStatus(&checks)
        await openLoopLateStart(&checks)
        await webSocket(&checks)
        print("courier-bench self-test: \(checks.passed) checks passed, \(checks.failed) failed")
        return checks.failed == 0
    }

    /// Counts checks and prints the failed ones.
    struct Checks {
        var passed = 0
        var failed = 0

        mutating func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
            if condition {
                passed += 1
            } else {
                failed += 1
                print("self-test failed: \(message())")
            }
        }
    }

    /// SplitMix64: a seeded generator, so every run checks the same samples.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Every value lands in a bucket whose range holds it and is at most 1/128 of its lowest
    /// value wide; buckets tile the values without gap or overlap.
    private static func histogramBuckets(_ checks: inout Checks) {
        var random = SeededGenerator(state: 1)
        var values = Array(UInt64(0)..<4096)
        for bit in 8..<64 {
            let power = UInt64(1) << UInt64(bit)
            values += [power - 1, power, power + 1]
            values += (0..<64).map { _ in power + UInt64.random(in: 0..<power, using: &random) }
        }
        values.append(.max)
        var worst = 0.0
        var badBuckets = 0
        for value in values {
            let range = LatencyHistogram.range(of: LatencyHistogram.bucket(of: value))
            let width = Double(range.upperBound - range.lowerBound) + 1
            if !range.contains(value) || (range.lowerBound >= LatencyHistogram.exactLimit && width * 128 > Double(range.lowerBound)) {
                badBuckets += 1
            }
            worst = max(worst, Double(range.upperBound - value) / Double(max(value, 1)))
        }
        checks.expect(badBuckets == 0, "\(badBuckets) of \(values.count) values fell in a bucket that does not hold them or is too wide")
        checks.expect(worst <= 0.01, "a value's bucket reads back \(worst * 100) % above it (limit 1 %)")
        let last = LatencyHistogram.bucket(of: .max)
        let gaps = (0..<last).filter { LatencyHistogram.range(of: $0).upperBound + 1 != LatencyHistogram.range(of: $0 + 1).lowerBound }
        checks.expect(gaps.isEmpty, "buckets \(gaps.prefix(5)) do not meet the next one")
        checks.expect(LatencyHistogram.range(of: last).upperBound == .max, "the last bucket ends below UInt64.max")
    }

    /// Percentiles read back within 1 % of the exact ones (never below) over distributions
    /// shaped like latencies, and at the edges (empty, one value, the extremes).
    private static func histogramPercentiles(_ checks: inout Checks) {
        var random = SeededGenerator(state: 42)
        let distributions: [(String, [UInt64])] = [
            ("uniform 0-1 ms", (0..<100_000).map { _ in UInt64.random(in: 0...1_000_000, using: &random) }),
            ("log-uniform 1 µs-10 s", (0..<100_000).map { _ in UInt64(pow(10, Double.random(in: 3...10, using: &random))) }),
            ("bimodal 100 µs / 1 % at 50 ms", (0..<100_000).map { index in
                index % 100 == 0 ? UInt64.random(in: 45_000_000...55_000_000, using: &random)
                    : UInt64.random(in: 90_000...110_000, using: &random)
            }),
            ("constant 123456", Array(repeating: 123_456, count: 1000)),
            ("one value", [7_777]),
            ("three values", [3, 300_000, 30_000_000_000]),
            ("tiny", (0..<1000).map { _ in UInt64.random(in: 0...300, using: &random) }),
        ]
        let quantiles = [0, 0.001, 0.25, 0.5, 0.9, 0.99, 0.999, 0.9999, 1]
        for (name, values) in distributions {
            var histogram = LatencyHistogram()
            for value in values { histogram.record(value) }
            let sorted = values.sorted()
            checks.expect(histogram.count == values.count, "\(name): count \(histogram.count), recorded \(values.count)")
            checks.expect(histogram.max == sorted.last! && histogram.min == sorted.first!, "\(name): min/max not exact")
            for q in quantiles {
                let exact = sorted[max(0, Int((Double(sorted.count) * q).rounded(.up)) - 1)]
                let read = histogram.value(atQuantile: q)
                checks.expect(
                    read >= exact && Double(read - exact) <= 0.01 * Double(exact),
                    "\(name): quantile \(q) read \(read), exact \(exact)")
            }
            let exactMean = values.reduce(0.0) { $0 + Double($1) } / Double(values.count)
            checks.expect(abs(histogram.mean - exactMean) <= 1e-9 * exactMean + 1e-9, "\(name): mean \(histogram.mean), exact \(exactMean)")
        }
        let empty = LatencyHistogram()
        checks.expect(empty.value(atQuantile: 0.99) == 0 && empty.count == 0 && empty.mean == 0, "an empty histogram reads other than 0")
        var durations = LatencyHistogram()
        durations.record(Duration.microseconds(250))
        durations.record(Duration.zero - .seconds(1))
        checks.expect(durations.max == 250_000 && durations.min == 0, "durations recorded as \(durations.min)...\(durations.max) ns, not 0...250000")
    }

    /// Two histograms merged read as one that recorded everything.
    private static func histogramMerge(_ checks: inout Checks) {
        var random = SeededGenerator(state: 7)
        var all = LatencyHistogram(), first = LatencyHistogram(), second = LatencyHistogram()
        for index in 0..<50_000 {
            let value = UInt64(pow(10, Double.random(in: 2...9, using: &random)))
            all.record(value)
            if index % 3 == 0 { first.record(value) } else { second.record(value) }
        }
        var merged = LatencyHistogram()
        merged.merge(first)
        merged.merge(LatencyHistogram())
        merged.merge(second)
        let same = [0, 0.5, 0.99, 0.999, 1].allSatisfy { merged.value(atQuantile: $0) == all.value(atQuantile: $0) }
        checks.expect(
            same && merged.count == all.count && merged.min == all.min && merged.max == all.max,
            "merged histograms read other than the one that recorded everything")
    }

    /// Due times: the first at the start, evenly spaced at the rate, the run's length exact.
    private static func schedule(_ checks: inout Checks) {
        let schedule = FixedRateSchedule(rate: 1000, duration: .seconds(2), start: 5_000_000_000)
        checks.expect(schedule.count == 2000, "2 s at 1000/s schedules \(schedule.count) requests")
        checks.expect(schedule.due(0) == 5_000_000_000 && schedule.due(1000) == 6_000_000_000, "due times are not start + i / rate")
        checks.expect(schedule.end == 7_000_000_000, "the run's end is \(schedule.end), not start + 2 s")
        let odd = FixedRateSchedule(rate: 3, duration: .seconds(1), start: 0)
        checks.expect(odd.count == 3 && odd.due(1) == 333_333_333 && odd.due(2) == 666_666_667, "a rate of 3/s is not spaced by a third of a second")
        checks.expect((1..<2000).allSatisfy { schedule.due($0) > schedule.due($0 - 1) }, "due times do not increase")
        checks.expect(FixedRateSchedule(rate: 100, duration: .zero, start: 0).count == 0, "an empty run schedules requests")
    }

    /// The `accepts` figure of nginx's status page, and nothing from another page.
    private static func stubStatus(_ checks: inout Checks) {
        let page = "Active connections: 2 \nserver accepts handled requests\n 17 17 1024 \nReading: 0 Writing: 1 Waiting: 1 \n"
        checks.expect(HTTP2Comparison.parseAccepts(page) == 17, "stub_status accepts read as \(String(describing: HTTP2Comparison.parseAccepts(page)))")
        checks.expect(HTTP2Comparison.parseAccepts("<html>404</html>") == nil, "a page other than stub_status read as a count")
    }

    /// A run whose first 50 requests were due before it could start them (as when the pacing
    /// thread or the pool falls behind): each is charged from its due time, so the worst tenth
    /// reads as tens of milliseconds, where timing from the moment each was sent would read
    /// as almost nothing.
    private static func openLoopLateStart(_ checks: inout Checks) async {
        let start = MonotonicTime.now - 50_000_000
        let result = await FixedRateLoad.run(rate: 1000, duration: .milliseconds(200), start: start) {}
        let p90 = result.histogram.value(atQuantile: 0.9)
        checks.expect(
            result.requests == 200 && result.histogram.count == 200 && result.failures == 0,
            "the late run answered \(result.histogram.count) of \(result.requests)")
        checks.expect(p90 >= 20_000_000, "the late run's p90 is \(p90) ns: latency was not counted from the due times")
        checks.expect(result.peakInFlight >= 1, "the late run had nothing in flight")
    }
}
