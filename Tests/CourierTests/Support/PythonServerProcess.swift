import Foundation
@testable import Courier

/// Errors starting a test server's Python process.
enum ServerProcessError: Error, CustomStringConvertible {
    /// The script is not next to the Swift file that names it.
    case scriptNotFound(String)
    /// The server process exited or printed something unexpected before announcing its port.
    case startupFailed(String)
    /// The server did not print its `PORT` line in time.
    case startupTimedOut(seconds: Double)

    var description: String {
        switch self {
        case .scriptNotFound(let path):
            return "test server: script not found at \(path)"
        case .startupFailed(let reason):
            return "test server: failed to start: \(reason)"
        case .startupTimedOut(let seconds):
            return "test server: did not print its PORT line within \(seconds) s"
        }
    }
}

/// A test server written in Python, run as a child process: the script binds 127.0.0.1 on an
/// ephemeral port, prints `PORT <n>` as its first stdout line, and exits when its stdin reaches
/// EOF (and if it gets reparented). ``ScriptedServer`` and ``HostileServer`` run their scripts
/// through it.
///
/// The process dies with us: its stdin is a pipe we keep open until ``stop()``.
///
/// Thread safety: every stored property is a `let`; the only mutable state is the "stopped"
/// flag, a `Locked<Bool>`.
final class PythonServerProcess: Sendable {
    /// The port the server listens on (127.0.0.1).
    let port: Int

    /// The server process. Only `isRunning`, `terminate()` and `waitUntilExit()` are used after
    /// launch, all of which are safe to call from any thread.
    private let process: Process
    /// The server's stdin; we hold the write end open until `stop()`.
    private let stdinPipe: Pipe
    /// The server's stdout; kept referenced so the server never writes to a closed pipe.
    private let stdoutPipe: Pipe
    /// Makes `stop()` idempotent.
    private let stopped = Locked(false)

    private init(port: Int, process: Process, stdinPipe: Pipe, stdoutPipe: Pipe) {
        self.port = port
        self.process = process
        self.stdinPipe = stdinPipe
        self.stdoutPipe = stdoutPipe
    }

    deinit {
        stop()
    }

    /// The script named `name` in this file's directory (Tests/CourierTests/Support).
    static func scriptPath(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(name).path
    }

    /// Launches `script` (a file name in this directory) with `arguments` and waits (up to
    /// 30 s) for it to announce its port.
    ///
    /// Uses `python` when given (a virtual environment's interpreter), else the interpreter
    /// named by `$SCRIPTED_SERVER_PYTHON` or `python3` from `PATH` (the test is skipped without
    /// one: ``TestTool/unavailable(_:)``).
    static func start(script: String, arguments: [String] = [], python: String? = nil) async throws -> PythonServerProcess {
        let path = scriptPath(script)
        guard FileManager.default.fileExists(atPath: path) else {
            throw ServerProcessError.scriptNotFound(path)
        }
        let python = try python ?? ProcessInfo.processInfo.environment["SCRIPTED_SERVER_PYTHON"] ?? TestTool.python3()

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // Unbuffered (the PORT line arrives at once), and no __pycache__ beside the sources (a
        // script that imports another would leave one, which SwiftPM warns about).
        process.arguments = [python, "-u", "-B", path] + arguments
        let stdinPipe = Pipe()
        let stdoutPipe = Pipe()
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        // stderr is inherited, so a Python traceback shows up in the test log.
        try await ChildProcesses.run(process)

        do {
            let port = try await readPort(from: stdoutPipe.fileHandleForReading, process: process, timeout: 30)
            return PythonServerProcess(port: port, process: process, stdinPipe: stdinPipe, stdoutPipe: stdoutPipe)
        } catch {
            if process.isRunning { process.terminate() }
            try? stdinPipe.fileHandleForWriting.close()
            throw error
        }
    }

    /// Stops the server process. Idempotent; also called from `deinit`.
    ///
    /// Does not wait for the process to exit; it normally is gone within milliseconds.
    func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        // Closing stdin alone makes the server exit (its stdin watchdog sees EOF);
        // SIGTERM is a second, faster path.
        try? stdinPipe.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
    }

    /// Stops the server and waits until its process has exited (its port is closed).
    func stopAndWait() {
        stop()
        process.waitUntilExit()
    }

    /// Whether the server process is still alive.
    var isRunning: Bool { process.isRunning }

    /// Reads the `PORT <n>` line from the server's stdout.
    ///
    /// The blocking read runs on a dedicated thread (never on the cooperative pool).
    /// On timeout the process is terminated, which also unblocks that read via EOF.
    private static func readPort(from handle: FileHandle, process: Process, timeout: Double) async throws -> Int {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
            let once = ResumeOnce(continuation)

            let reader = Thread {
                var line = Data()
                while !line.contains(UInt8(ascii: "\n")) {
                    let chunk = handle.readChunk()
                    if chunk.isEmpty { break }  // EOF: the process exited
                    line.append(chunk)
                }
                let text = String(decoding: line, as: UTF8.self)
                let firstLine = text.split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
                let parts = firstLine.split(separator: " ")
                if parts.count == 2, parts[0] == "PORT", let port = Int(parts[1]), port > 0 {
                    once.resume(with: .success(port))
                } else if text.isEmpty {
                    once.resume(with: .failure(ServerProcessError.startupFailed(
                        "process exited before printing its port (is python3 on PATH?)")))
                } else {
                    once.resume(with: .failure(ServerProcessError.startupFailed(
                        "unexpected first line \(String(firstLine).debugDescription)")))
                }
            }
            reader.name = "PythonServerProcess.readPort"
            reader.start()

            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                if once.resume(with: .failure(ServerProcessError.startupTimedOut(seconds: timeout))) {
                    process.terminate()
                }
            }
        }
    }
}

/// Resumes a continuation at most once, whichever of several racers gets there first.
private final class ResumeOnce: Sendable {
    private let continuation: Locked<CheckedContinuation<Int, any Error>?>

    init(_ continuation: CheckedContinuation<Int, any Error>) {
        self.continuation = Locked(continuation)
    }

    /// Returns `true` if this call won the race (and delivered `result`).
    @discardableResult
    func resume(with result: Result<Int, any Error>) -> Bool {
        let winner = continuation.withLock { continuation in
            defer { continuation = nil }
            return continuation
        }
        winner?.resume(with: result)
        return winner != nil
    }
}
