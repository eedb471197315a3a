import Courier
import Foundation

/// `--url`'s download rows: one large body (`--download-url`, by default `/files/100MiB.bin`
/// on `--url`'s server, which the repository's nginx config serves from disk) downloaded one
/// at a time, in interleaved rounds, by `raw libcurl` (``RawCurlDownload``: bytes counted and
/// discarded, the floor), `transport stream` (``CurlTransport``'s `stream`, chunks counted and
/// discarded), `bytes` (``APIClient/bytes(for:stallTimeout:maxBytes:)`` over the same
/// transport, chunks discarded) and `download` (``APIClient/download(_:to:maxBytes:stallTimeout:)``
/// to a file on tmpfs when there is one). Ratios are to the `raw libcurl` row.
struct DownloadComparison {
    let options: Options
    let url: URL
    let rows: RowRecorder

    /// A body that is not the size the floor saw.
    struct WrongSize: Error {}

    func run() async {
        #if canImport(CCurl)
        // The floor's warm-up tells the body's size, and whether the server has it at all.
        let (warmup, size) = await RawCurlDownload.measure(url: url, downloads: 1, expectedBytes: nil)
        guard warmup.failures == 0, size > 0 else {
            print("download rows skipped: \(url.absoluteString) did not answer 200 with a body (for the repository's nginx config: mkdir -p <prefix>/files && head -c 100M /dev/urandom > <prefix>/files/100MiB.bin)")
            return
        }
        let transport = CurlTransport()
        let request = HTTPRequest(url: url, maximumResponseSize: size)
        let transportStream: @Sendable () async throws -> Void = {
            let (head, body) = try await transport.stream(request, stallTimeout: .seconds(60))
            var count = 0
            for try await chunk in body { count += chunk.count }
            guard head.status == 200, count == size else { throw WrongSize() }
        }
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        let path = components.path
        components.path = ""
        components.query = nil
        let client = APIClient(configuration: .init(baseURL: components.url!, transport: transport, retryPolicy: .never))
        let endpoint = Endpoint<Data>(path: path)
        let bytes: @Sendable () async throws -> Void = {
            let (_, body) = try await client.bytes(for: endpoint, maxBytes: size)
            var count = 0
            for try await chunk in body { count += chunk.count }
            guard count == size else { throw WrongSize() }
        }
        let shm = URL(fileURLWithPath: "/dev/shm")
        let directory = FileManager.default.isWritableFile(atPath: shm.path) ? shm : FileManager.default.temporaryDirectory
        let file = directory.appendingPathComponent("courier-bench-download-\(ProcessInfo.processInfo.processIdentifier).bin")
        defer { try? FileManager.default.removeItem(at: file) }
        let download: @Sendable () async throws -> Void = {
            try await client.download(endpoint, to: file, maxBytes: size)
            let written = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber
            guard written?.intValue == size else { throw WrongSize() }
        }
        let raw: Runner = { downloads, _ in await RawCurlDownload.measure(url: url, downloads: downloads, expectedBytes: size).0 }
        let rounds = options.quick ? 2 : 5
        let downloads = rounds * (options.quick ? 1 : 2)
        let mebibytes = Double(size) / 1_048_576
        print(String(format: "\ndownloads: %.1f MiB from %@, one at a time, %d per path in %d interleaved rounds", mebibytes, url.absoluteString, downloads, rounds))
        print("raw libcurl: a multi loop, bytes counted and discarded (the floor); transport stream: CurlTransport.stream; bytes: APIClient.bytes; download: APIClient.download to \(directory.path)")
        print("cpu: CPU time of the whole process per MiB, and its ratio to raw libcurl's")
        print(RowRecorder.throughputHeader)
        for path in [transportStream, bytes, download] { _ = await measure(requests: 1, concurrency: 1, path) }
        let results = await measureInterleaved(
            requests: downloads, concurrency: 1, rounds: rounds, [raw, runner(transportStream), runner(bytes), runner(download)])
        for (name, result) in zip(["raw libcurl", "transport stream", "bytes", "download"], results) {
            rows.reportThroughput(name, "curl", bodyBytes: size, result, baseline: results[0])
        }
        print(String(
            format: "  bytes / raw libcurl MiB/s %.2f (target >= 0.9); cpu per MiB %.2f of raw libcurl's",
            results[2].mebibytesPerSecond(size) / results[0].mebibytesPerSecond(size),
            results[2].cpuMillisPerMebibyte(size) / results[0].cpuMillisPerMebibyte(size)))
        await client.shutdown()
        #endif
    }
}

extension Measurement {
    /// Body throughput of downloads of `bodyBytes` each (failed ones not counted), in MiB/s.
    func mebibytesPerSecond(_ bodyBytes: Int) -> Double {
        Double(requests - failures) * Double(bodyBytes) / 1_048_576 / elapsed.inSeconds
    }

    /// CPU time of the whole process per MiB of body, in milliseconds.
    func cpuMillisPerMebibyte(_ bodyBytes: Int) -> Double {
        usage.cpuSeconds * 1000 / (Double(requests) * Double(bodyBytes) / 1_048_576)
    }
}
