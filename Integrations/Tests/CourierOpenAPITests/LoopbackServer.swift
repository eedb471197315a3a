import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One of the root package's Python test servers (`Tests/CourierTests/Support/*.py`: the
/// scripted server, httpbin), run as a child process on an ephemeral port of 127.0.0.1. The
/// script prints `PORT <n>` first and exits when its stdin reaches EOF, so it dies with us.
final class LoopbackServer: Sendable {
    /// Why a server did not start.
    struct StartFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// The root package's folder (this file is `Integrations/Tests/CourierOpenAPITests/…`).
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The interpreter of the virtual environment the root package's tests make (httpbin is in
    /// it), or `nil` when they have not made it yet.
    static var venvPython: String? {
        let path = root.appendingPathComponent(".build/venv/bin/python").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    /// Whether a missing tool fails the test rather than skipping it (CI).
    static var toolsRequired: Bool { ProcessInfo.processInfo.environment["COURIER_REQUIRE_TEST_TOOLS"] == "1" }

    private let process: Process
    private let input: Pipe
    private let output: Pipe
    /// The port the server listens on.
    let port: Int

    /// `http://127.0.0.1:<port>`.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    private init(process: Process, input: Pipe, output: Pipe, port: Int) {
        self.process = process
        self.input = input
        self.output = output
        self.port = port
    }

    deinit {
        stop()
    }

    /// Starts `script` (a file of the root's `Tests/CourierTests/Support`) with `python`.
    static func start(script: String, python: String = "python3") async throws -> LoopbackServer {
        let path = root.appendingPathComponent("Tests/CourierTests/Support/\(script)").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [python, "-u", "-B", path]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let handle = output.fileHandleForReading
        // The blocking read of the first line runs on a thread of its own, never on the pool.
        let line = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            let reader = Thread {
                var line = Data()
                while !line.contains(UInt8(ascii: "\n")) {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    line.append(chunk)
                }
                continuation.resume(returning: String(decoding: line, as: UTF8.self))
            }
            reader.start()
        }
        let parts = line.split(separator: "\n").first?.split(separator: " ") ?? []
        guard parts.count == 2, parts[0] == "PORT", let port = Int(parts[1]) else {
            if process.isRunning { process.terminate() }
            throw StartFailure(description: "\(script) did not announce its port: \(line.debugDescription)")
        }
        return LoopbackServer(process: process, input: input, output: output, port: port)
    }

    /// Stops the server (closing its stdin ends it).
    func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
    }
}
