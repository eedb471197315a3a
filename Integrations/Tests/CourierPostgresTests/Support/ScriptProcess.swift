import Foundation

/// One of this target's Python helpers (`Support/*.py`: the TCP proxy, the receiving server),
/// run as a child on an ephemeral port of 127.0.0.1. The script prints `PORT <n>` first, answers
/// each command line with `ok`, and exits when its stdin closes, so it dies with the test.
final class ScriptProcess: Sendable {
    /// Why a script did not start.
    struct StartFailure: Error, CustomStringConvertible {
        let description: String
    }

    private let process: Process
    private let input: Pipe
    private let output: FileHandle
    /// The port the script listens on.
    let port: Int

    private init(process: Process, input: Pipe, output: FileHandle, port: Int) {
        self.process = process
        self.input = input
        self.output = output
        self.port = port
    }

    deinit {
        stop()
    }

    /// Starts `script` (a file of `Support/`) with `arguments`.
    static func start(_ script: String, arguments: [String] = []) async throws -> ScriptProcess {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(script).path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", "-B", path] + arguments
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let line = await readLine(output.fileHandleForReading)
        let parts = line.split(separator: " ")
        guard parts.count == 2, parts[0] == "PORT", let port = Int(parts[1]) else {
            if process.isRunning { process.terminate() }
            throw StartFailure(description: "\(script) did not announce its port: \(line.debugDescription)")
        }
        return ScriptProcess(process: process, input: input, output: output.fileHandleForReading, port: port)
    }

    /// Sends `command` and waits for the script's `ok`.
    func send(_ command: String) async throws {
        try input.fileHandleForWriting.write(contentsOf: Data((command + "\n").utf8))
        let answer = await Self.readLine(output)
        guard answer == "ok" else { throw StartFailure(description: "\(command): answered \(answer.debugDescription)") }
    }

    /// Stops the script (closing its stdin ends it).
    func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
    }

    /// One line of `handle`, read byte by byte on a thread of its own (a blocking read never
    /// runs on the pool), so that nothing after the line is consumed.
    private static func readLine(_ handle: FileHandle) async -> String {
        await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            Thread {
                var line = Data()
                while true {
                    guard let byte = try? handle.read(upToCount: 1), let first = byte.first else { break }
                    if first == UInt8(ascii: "\n") { break }
                    line.append(first)
                }
                continuation.resume(returning: String(decoding: line, as: UTF8.self))
            }.start()
        }
    }
}
