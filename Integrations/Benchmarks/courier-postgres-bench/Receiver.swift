import Courier
import Foundation

/// The receiving server of the drain rows: the tests' `receiver.py` (answers each POST after a
/// delay, counts `Idempotency-Key`s), a child on an ephemeral loopback port, ended with us.
final class Receiver: Sendable {
    private let process: Process
    private let input: Pipe
    let baseURL: URL

    private init(process: Process, input: Pipe, baseURL: URL) {
        self.process = process
        self.input = input
        self.baseURL = baseURL
    }

    static func start(delayMilliseconds: Int) async throws -> Receiver {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tests/CourierPostgresTests/Support/receiver.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", "-B", script, "\(delayMilliseconds)"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let handle = output.fileHandleForReading
        // The blocking read of the first line runs on a thread of its own, never on the pool.
        let line = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            Thread {
                var line = Data()
                while let byte = try? handle.read(upToCount: 1), let first = byte.first, first != UInt8(ascii: "\n") {
                    line.append(first)
                }
                continuation.resume(returning: String(decoding: line, as: UTF8.self))
            }.start()
        }
        guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
            process.terminate()
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "receiver.py said \(line)"])
        }
        return Receiver(process: process, input: input, baseURL: URL(string: "http://127.0.0.1:\(port)")!)
    }

    /// What the receiver counted so far.
    struct Stats: Decodable, Sendable {
        let distinct: Int
        let duplicates: Int
    }

    /// The receiver's counts (`GET /stats`).
    func stats() async throws -> Stats {
        let client = APIClient(configuration: APIClient.Configuration(baseURL: baseURL, retryPolicy: .never))
        let response = try await client.data(for: HTTPRequest(url: baseURL.appendingPathComponent("stats")))
        await client.shutdown()
        return try JSONDecoder().decode(Stats.self, from: response.body)
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
    }
}
