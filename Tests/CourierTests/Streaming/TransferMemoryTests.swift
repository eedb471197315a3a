#if os(Linux)
import Foundation
import Testing

@testable import Courier

/// The `TransferChild` helper executable, built beside this test bundle.
private var childURL: URL {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("TransferChild")
}

/// Runs `arguments` (through `/usr/bin/env` unless `executable` is given) to its end on a thread
/// of its own, never on Swift's cooperative pool; returns its exit status and standard output
/// (its standard error goes to the test's).
private func run(_ arguments: [String], executable: URL = URL(fileURLWithPath: "/usr/bin/env")) async throws -> (status: Int32, output: Data) {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            let output = Pipe()
            process.standardOutput = output
            do {
                try process.run()
            } catch {
                continuation.resume(throwing: error)
                return
            }
            let data = output.fileHandleForReading.readToEndOfFile()
            process.waitUntilExit()
            continuation.resume(returning: (process.terminationStatus, data))
        }
        thread.start()
    }
}

/// The SHA-256 (lower-case hex) of the file at `path`, or with `path` nil of `size` bytes whose
/// byte i is i % 256: Python's hashlib (OpenSSL's, with the CPU's SHA extensions: 1 GiB in about
/// a second, several times faster than coreutils' `sha256sum`).
private func sha256(ofFile path: String?, patternBytes size: Int = 0) async throws -> String {
    let script = """
        import hashlib, sys
        digest = hashlib.sha256()
        if sys.argv[1] == "-":
            block = bytes(range(256)) * 4096
            for _ in range(int(sys.argv[2]) // len(block)): digest.update(block)
        else:
            with open(sys.argv[1], "rb") as file:
                for block in iter(lambda: file.read(1 << 20), b""): digest.update(block)
        print(digest.hexdigest())
        """
    let output = try await run([try TestTool.python3(), "-c", script, path ?? "-", String(size)]).output
    return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// What `TransferChild` prints.
private struct TransferReport: Decodable {
    let startRSSKiB: Int
    let peakRSSKiB: Int
    let uploadStatus: Int
    let downloadStatus: Int
    let downloadBytes: Int
}

@Suite struct TransferMemoryTests {
    /// Peak resident size above the start that the transfers may add, in bytes.
    static let memoryBound = 50_000_000

    @Test("a 1 GiB streamed upload and a 1 GiB download to a file (256 MiB each under ThreadSanitizer) arrive whole, in a child whose peak RSS stays under 50 MB above its start")
    func largeTransfersInBoundedMemory() async throws {
        let size = (isThreadSanitized ? 256 : 1024) << 20
        let mebibyte = 1 << 20
        let server = try await ScriptedServer.start()
        defer { server.stop() }
        try await server.script("/warmup-upload", method: "POST", [.status(204)])
        try await server.script("/upload", method: "POST", [.status(204)])
        try await server.script("/warmup-download", [.streamed(StreamSpec(chunks: 8, chunkSize: mebibyte, pattern: true))])
        try await server.script("/download", [.streamed(StreamSpec(chunks: size / mebibyte, chunkSize: mebibyte, pattern: true))])
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        let child = try await run([server.baseURL.absoluteString, String(size), directory.path], executable: childURL)
        try #require(child.status == 0, "TransferChild failed (its error is above)")
        let report = try JSONDecoder().decode(TransferReport.self, from: child.output)

        // The body both ways: `size` bytes whose byte i is i % 256 (size is a multiple of 1 MiB).
        let expected = try await sha256(ofFile: nil, patternBytes: size)
        #expect(expected.count == 64)

        // Every byte uploaded, as the server received it.
        #expect(report.uploadStatus == 204)
        let uploads = try await server.requests(path: "/upload")
        #expect(uploads.count == 1)
        #expect(uploads.first?.bodyLength == size)
        #expect(uploads.first?.bodySHA256 == expected)

        // Every byte downloaded, as the file holds it.
        let file = directory.appendingPathComponent("download.bin")
        #expect(report.downloadStatus == 200)
        #expect(report.downloadBytes == size)
        #expect(try await sha256(ofFile: file.path) == expected)

        let growth = (report.peakRSSKiB - report.startRSSKiB) * 1024
        print(String(
            format: "TransferMemoryTests: %d MiB each way: RSS %.1f MiB after the warm-up, peak %.1f MiB (+%.1f MiB)",
            size / mebibyte, Double(report.startRSSKiB) / 1024, Double(report.peakRSSKiB) / 1024, Double(growth) / Double(mebibyte)))
        #expect(report.startRSSKiB > 0 && report.peakRSSKiB > 0)
        #expect(growth < Self.memoryBound, "peak RSS grew by \(growth) bytes during the transfers")
    }
}
#endif
