#if canImport(Glibc)
import Foundation

/// The echo server's process (``WebSocketEchoServer``): this executable started again with
/// `--websocket-echo-server`. Its standard input is a pipe this process holds: closing it, or
/// this process ending however it ends, stops the server.
final class WebSocketEchoProcess {
    let port: Int
    private let process: Process?
    private let input: Pipe?

    private init(port: Int, process: Process?, input: Pipe?) {
        self.port = port
        self.process = process
        self.input = input
    }

    /// Starts the server and waits (on a thread of its own, not a task's) for its port; with
    /// `existingPort`, a server someone else started there.
    static func start(existingPort: Int? = nil) async -> Result<WebSocketEchoProcess, StartFailure> {
        if let existingPort { return .success(WebSocketEchoProcess(port: existingPort, process: nil, input: nil)) }
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: launch()) }
        }
    }

    /// Why the server did not start.
    struct StartFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Stops the server.
    func stop() {
        try? input?.fileHandleForWriting.close()
        if let process, process.isRunning { process.terminate() }
    }

    private static func launch() -> Result<WebSocketEchoProcess, StartFailure> {
        let process = Process()
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--websocket-echo-server"]
        let (input, output) = (Pipe(), Pipe())
        process.standardInput = input
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            return .failure(StartFailure(description: "could not start \(executable) --websocket-echo-server: \(error)"))
        }
        var line = Data()
        while !line.contains(0x0A) {
            let more = output.fileHandleForReading.availableData
            guard !more.isEmpty else { break }
            line += more
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("port "), let port = Int(text.dropFirst(5)), port > 0 else {
            process.terminate()
            return .failure(StartFailure(description: "the echo server did not say its port (it said \"\(text)\")"))
        }
        return .success(WebSocketEchoProcess(port: port, process: process, input: input))
    }
}
#endif
