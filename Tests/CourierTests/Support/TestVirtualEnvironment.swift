import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The Python virtual environment of httpbin, Strawberry and websockets (``VenvServer``'s servers), at
/// `<package root>/.build/venv`, made by the tests themselves on first use: pinned versions,
/// once per run.
///
/// - In one process: one shared initialisation (a task every caller awaits).
/// - Across processes (suites run in parallel as separate `swift test` runs, or the plain and
///   the ThreadSanitizer runs): an exclusive `flock` on `.build/venv.lock` while it is checked
///   and made. It is made in place (a virtual environment's scripts name its path, so it cannot
///   be moved) and a marker file listing its packages is written last, so a half-made
///   environment is never used, and one made with other pins is made again.
/// - `python3 -m venv` and `pip` run on a thread of their own, never on the cooperative pool.
///
/// `$COURIER_HTTPBIN_PYTHON` names an interpreter to use instead (nothing is made).
enum TestVirtualEnvironment {
    /// The packages, as `.ci/run` and the README pin them.
    static let packages = ["httpbin==0.10.4", "strawberry-graphql==0.341.2", "uvicorn==0.54.0", "starlette==1.10.0", "websockets==17.4"]

    /// The environment's directory.
    static var directory: URL { VenvServer.packageRoot.appendingPathComponent(".build/venv") }

    /// The file naming the packages of a complete environment, written last.
    private static let markerName = "courier-packages.txt"
    private static var marker: String { packages.joined(separator: "\n") + "\n" }

    /// The environment's interpreter; skips the test (``TestTool/unavailable(_:)``) when the
    /// environment cannot be made, saying why.
    static func python() async throws -> String {
        if let python = ProcessInfo.processInfo.environment["COURIER_HTTPBIN_PYTHON"] { return python }
        switch await shared.value {
        case .success(let python): return python
        case .failure(let reason): try TestTool.unavailable(reason.description)
        }
    }

    /// Why the environment could not be had.
    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    /// The one initialisation of this process.
    private static let shared = Task<Result<String, Unavailable>, Never> {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: Result { () throws(Unavailable) in try prepare() }) }
            thread.name = "TestVirtualEnvironment"
            thread.start()
        }
    }

    /// On the thread: the environment if it is complete, else made under the lock.
    private static func prepare() throws(Unavailable) -> String {
        let python = directory.appendingPathComponent("bin/python").path
        if isComplete() { return python }
        guard let python3 = TestTool.find("python3") else {
            throw Unavailable(description: "httpbin's virtual environment cannot be made: python3 is not on PATH")
        }
        let build = directory.deletingLastPathComponent()
        try? FileManager.default.createDirectory(at: build, withIntermediateDirectories: true)
        let lockPath = build.appendingPathComponent("venv.lock").path
        let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard lock >= 0 else { throw Unavailable(description: "cannot open \(lockPath): errno \(errno)") }
        defer { close(lock) }
        // Waits for another process making it; released when the descriptor closes.
        while flock(lock, LOCK_EX) != 0 {
            guard errno == EINTR else { throw Unavailable(description: "cannot lock \(lockPath): errno \(errno)") }
        }
        if isComplete() { return python }

        // Whatever is there is half-made or made with other pins.
        try? FileManager.default.removeItem(at: directory)
        try run(python3, ["-m", "venv", directory.path],
                failure: "python3 -m venv failed (Debian: apt-get install python3-venv)")
        try run(python,
                ["-m", "pip", "install", "-q", "--disable-pip-version-check", "--retries", "2", "--timeout", "20"] + packages,
                failure: "pip could not install \(packages.joined(separator: " ")) (no network?)")
        do {
            try marker.write(to: directory.appendingPathComponent(markerName), atomically: true, encoding: .utf8)
        } catch {
            throw Unavailable(description: "cannot write \(markerName) in \(directory.path): \(error)")
        }
        return python
    }

    /// Whether the environment is there, made with these packages.
    private static func isComplete() -> Bool {
        let python = directory.appendingPathComponent("bin/python").path
        let made = try? String(contentsOf: directory.appendingPathComponent(markerName), encoding: .utf8)
        return made == marker && FileManager.default.isExecutableFile(atPath: python)
    }

    /// Runs `executable` to its end (on the calling thread, never the pool's); throws
    /// `failure` with the last line it printed when it fails.
    private static func run(_ executable: String, _ arguments: [String], failure: String) throws(Unavailable) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw Unavailable(description: "\(failure): cannot run \(executable): \(error)")
        }
        // Read to EOF before waiting, so a chatty pip never blocks on a full pipe.
        let printed = String(decoding: output.fileHandleForReading.readToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let last = printed.split(whereSeparator: \.isNewline).last.map(String.init) ?? "exit status \(process.terminationStatus)"
            throw Unavailable(description: "\(failure): \(last)")
        }
    }
}
