// A helper for the transfer memory test: in a process of its own (so its peak resident size is
// the transfers' alone, not a test runner's), uploads a body of <bytes> bytes streamed from a
// generator and downloads one of <bytes> bytes to a file, through APIClient over CurlTransport,
// then prints one line of JSON:
//
//     {"startRSSKiB": …, "peakRSSKiB": …, "uploadStatus": 204, "downloadStatus": 200, "downloadBytes": …}
//
// startRSSKiB is VmRSS after a warm-up (an 8 MiB upload and download over the same paths, so
// the client, libcurl and the allocator have set up what they keep); peakRSSKiB is VmHWM at
// the end (the highest VmRSS of the process's life: it cannot be reset, so it covers the
// warm-up too). Body byte `i` is `i % 256` both ways (a scripted stream with `pattern: true`).
//
//     TransferChild <server base URL> <bytes> <directory>
//
// The server answers POST /warmup-upload and /upload, and GET /warmup-download (8 MiB) and
// /download (<bytes>); the download goes to <directory>/download.bin, left for the test to
// check.
import Courier
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 4, let baseURL = URL(string: arguments[1]), let size = Int(arguments[2]), size >= 0 else {
    FileHandle.standardError.write(Data("usage: TransferChild <server base URL> <bytes> <directory>\n".utf8))
    exit(2)
}
let directory = URL(fileURLWithPath: arguments[3])
let warmupSize = 8 << 20

/// `/proc/self/status`'s field `name` (`VmRSS`, `VmHWM`), in KiB.
func statusKiB(_ name: String) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? -1
    }
    return -1
}

/// The body of `length` bytes whose byte `i` is `i % 256`, produced as it is sent: each read
/// is a slice of one shared 1 MiB block (no copy, nothing kept).
func patternStream(length: Int) -> HTTPBodyStream {
    let blockSize = 1 << 20
    let block = Data((0..<(blockSize + 256)).map { UInt8(truncatingIfNeeded: $0) })
    return HTTPBodyStream(length: length) {
        var offset = 0
        return { maxLength in
            let count = min(maxLength, length - offset, blockSize)
            let start = offset % 256
            offset += count
            return block[start..<(start + count)]
        }
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("TransferChild: \(message)\n".utf8))
    exit(1)
}

let client = APIClient(configuration: .init(
    baseURL: baseURL, transport: CurlTransport(), security: nil, retryPolicy: .never,
    timeouts: .init(attempt: .seconds(600), request: .seconds(900))))

/// Uploads `length` pattern bytes to `path`; returns the status.
func upload(_ path: String, length: Int) async throws -> Int {
    let endpoint = Endpoint<EmptyResponse>(path: path, method: .post, body: .stream(patternStream(length: length)))
    return try await client.send(endpoint).status
}

/// Downloads `path` to `file` (at most `length` bytes); returns the status and the file's size.
func download(_ path: String, to file: URL, length: Int) async throws -> (status: Int, bytes: Int) {
    let response = try await client.download(Endpoint<Data>(path: path), to: file, maxBytes: length)
    let bytes = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue ?? -1
    return (response.status, bytes)
}

do {
    let warmupFile = directory.appendingPathComponent("warmup.bin")
    guard try await upload("warmup-upload", length: warmupSize) / 100 == 2 else { fail("the warm-up upload failed") }
    guard try await download("warmup-download", to: warmupFile, length: warmupSize).bytes == warmupSize else {
        fail("the warm-up download is short")
    }
    try FileManager.default.removeItem(at: warmupFile)
    let startRSS = statusKiB("VmRSS")

    let uploadStatus = try await upload("upload", length: size)
    let (downloadStatus, downloadBytes) = try await download("download", to: directory.appendingPathComponent("download.bin"), length: size)
    let peakRSS = statusKiB("VmHWM")
    await client.shutdown()
    print("{\"startRSSKiB\": \(startRSS), \"peakRSSKiB\": \(peakRSS), \"uploadStatus\": \(uploadStatus), \"downloadStatus\": \(downloadStatus), \"downloadBytes\": \(downloadBytes)}")
} catch {
    fail("\(error)")
}
