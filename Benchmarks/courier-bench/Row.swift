import Courier
import Foundation

/// One line of results (the JSON schema of `--json`).
struct Row: Encodable {
    let name: String
    let transport: String
    let concurrency: Int
    let requests: Int
    /// Requests that failed (not counted in `requestsPerSecond`).
    let failures: Int
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
    /// Connections the server accepted per run of the row (HTTP/2 rows; absent elsewhere).
    let connectionsPerRun: Double?
}

/// One line of the fixed-rate rows (`--url`): latency from each request's due time (the JSON
/// schema of `--json`'s `fixedRate.rows`).
struct FixedRateRow: Encodable {
    let name: String
    /// The fraction of raw libcurl's maximum rate the row ran at.
    let load: Double
    let rate: Double
    let achievedRate: Double
    let requests: Int
    let failures: Int
    let p50Micros: Double
    let p99Micros: Double
    let p999Micros: Double
    let maxMicros: Double
    let cpuMicrosPerRequest: Double
    let peakInFlight: Int
}

/// One line of the download rows (`--url`): body throughput and CPU per MiB (the JSON schema
/// of `--json`'s `downloads`).
struct ThroughputRow: Encodable {
    let name: String
    let transport: String
    let bodyBytes: Int
    let downloads: Int
    let failures: Int
    let mebibytesPerSecond: Double
    let baselineMebibytesPerSecond: Double
    /// CPU time of the whole process per MiB of body (milliseconds), and the baseline's.
    let cpuMillisPerMebibyte: Double
    let baselineCpuMillisPerMebibyte: Double
    let peakRSSMiB: Double
}

/// Prints result lines and keeps them for `--json`.
final class RowRecorder {
    /// The figures that are not rows (in-memory runs only).
    struct Extra: Encodable {
        let tellNanos: Double
        let askNanos: Double
        let coalescingTransportCallsPer1000: Int
        let offlineEnqueuesPerSecond64: Double
        let offlineEnqueuesPerSecond1: Double
        let offlineDrainPerSecond: Double
    }

    private(set) var rows: [Row] = []
    private(set) var throughputRows: [ThroughputRow] = []
    private(set) var fixedRateRows: [FixedRateRow] = []
    /// Raw libcurl's maximum rate, which the fixed-rate rows are fractions of.
    var fixedRateMaximum: Double?
    var extra: Extra?

    /// Prints one result line, with its ratios to `baseline`, and keeps it.
    func report(
        _ name: String, _ transport: String, _ concurrency: Int, _ measured: Measurement, baseline: Measurement, messages: Double,
        connectionsPerRun: Double? = nil
    ) {
        let row = Row(
            name: name, transport: transport, concurrency: concurrency, requests: measured.requests, failures: measured.failures,
            requestsPerSecond: measured.requestsPerSecond, baselineRequestsPerSecond: baseline.requestsPerSecond,
            p50Micros: measured.percentileMicros(0.5), p90Micros: measured.percentileMicros(0.9),
            p99Micros: measured.percentileMicros(0.99), messagesPerRequest: messages, peakRSSMiB: ProcessMemory.peakResidentMiB,
            cpuMicrosPerRequest: measured.cpuMicrosPerRequest, baselineCpuMicrosPerRequest: baseline.cpuMicrosPerRequest,
            contextSwitchesPerRequest: measured.contextSwitchesPerRequest, connectionsPerRun: connectionsPerRun)
        rows.append(row)
        let columns = String(
            format: " %6d %9d %10.0f %10.0f %6.2f %9.1f %9.1f %9.1f %8.2f %8.1f %6.2f %6.2f",
            row.concurrency, row.requests, row.requestsPerSecond, row.baselineRequestsPerSecond,
            row.requestsPerSecond / row.baselineRequestsPerSecond, row.p50Micros, row.p90Micros, row.p99Micros,
            row.messagesPerRequest, row.cpuMicrosPerRequest, row.cpuMicrosPerRequest / row.baselineCpuMicrosPerRequest,
            row.contextSwitchesPerRequest)
        let connections = connectionsPerRun.map { String(format: " %6.1f", $0) } ?? ""
        let failed = measured.failures == 0 ? "" : "  (\(measured.failures) failed" + (measured.firstFailure.map { ", first: \($0)" } ?? "") + ")"
        print(row.name.padding(toLength: 18, withPad: " ", startingAt: 0) + columns + connections + failed)
    }

    /// The column titles of the fixed-rate rows.
    static let fixedRateHeader = "name               load    rate/s  achieved  requests    p50 µs    p99 µs  p99.9 µs    max µs   cpu µs  in flight"

    /// Prints one fixed-rate row and keeps it.
    func reportFixedRate(_ name: String, load: Double, _ measured: FixedRateMeasurement) {
        let histogram = measured.histogram
        let row = FixedRateRow(
            name: name, load: load, rate: measured.rate, achievedRate: measured.achievedRate, requests: measured.requests,
            failures: measured.failures, p50Micros: histogram.micros(atQuantile: 0.5), p99Micros: histogram.micros(atQuantile: 0.99),
            p999Micros: histogram.micros(atQuantile: 0.999), maxMicros: Double(histogram.max) / 1000,
            cpuMicrosPerRequest: measured.cpuMicrosPerRequest, peakInFlight: measured.peakInFlight)
        fixedRateRows.append(row)
        let columns = String(
            format: " %3.0f %% %9.0f %9.0f %9d %9.1f %9.1f %9.1f %9.1f %8.1f %10d",
            load * 100, row.rate, row.achievedRate, row.requests, row.p50Micros, row.p99Micros, row.p999Micros, row.maxMicros,
            row.cpuMicrosPerRequest, row.peakInFlight)
        print(row.name.padding(toLength: 16, withPad: " ", startingAt: 0) + columns
              + (row.failures > 0 ? "  (\(row.failures) failed)" : ""))
    }

    /// The column titles of the download rows.
    static let throughputHeader = "name                 size MiB downloads     MiB/s  baseline  ratio cpu ms/MiB  ratio  peak RSS MiB"

    /// Prints one download row, with its ratios to `baseline`, and keeps it.
    func reportThroughput(_ name: String, _ transport: String, bodyBytes: Int, _ measured: Measurement, baseline: Measurement) {
        let row = ThroughputRow(
            name: name, transport: transport, bodyBytes: bodyBytes, downloads: measured.requests, failures: measured.failures,
            mebibytesPerSecond: measured.mebibytesPerSecond(bodyBytes), baselineMebibytesPerSecond: baseline.mebibytesPerSecond(bodyBytes),
            cpuMillisPerMebibyte: measured.cpuMillisPerMebibyte(bodyBytes),
            baselineCpuMillisPerMebibyte: baseline.cpuMillisPerMebibyte(bodyBytes), peakRSSMiB: ProcessMemory.peakResidentMiB)
        throughputRows.append(row)
        let columns = String(
            format: " %8.1f %9d %9.0f %9.0f %6.2f %10.3f %6.2f %13.1f",
            Double(bodyBytes) / 1_048_576, row.downloads, row.mebibytesPerSecond, row.baselineMebibytesPerSecond,
            row.mebibytesPerSecond / row.baselineMebibytesPerSecond, row.cpuMillisPerMebibyte,
            row.cpuMillisPerMebibyte / row.baselineCpuMillisPerMebibyte, row.peakRSSMiB)
        print(row.name.padding(toLength: 18, withPad: " ", startingAt: 0) + columns
              + (row.failures > 0 ? "  (\(row.failures) failed)" : ""))
    }

    /// Writes the rows (and the extra figures) as JSON to `path`.
    func write(to path: String) {
        struct FixedRate: Encodable {
            let rawMaximumRequestsPerSecond: Double
            let rows: [FixedRateRow]
        }
        struct Output: Encodable {
            let scenarios: [Row]
            let downloads: [ThroughputRow]
            let fixedRate: FixedRate?
            let extra: Extra?
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try encoder.encode(Output(
                scenarios: rows, downloads: throughputRows,
                fixedRate: fixedRateMaximum.map { FixedRate(rawMaximumRequestsPerSecond: $0, rows: fixedRateRows) }, extra: extra)).write(to: URL(fileURLWithPath: path))
        } catch {
            fail("could not write \(path): \(error)")
        }
    }
}
